export { escapeXml } from "./escape.js";
export type { FmtOptions } from "./fmt.js";
export { fmt } from "./fmt.js";
