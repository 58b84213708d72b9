export type { CatalogOptions, CatalogResult, CatalogStyle } from "./catalog.js";
export { formatCatalog, MIN_DESCRIPTION_LENGTH, nameOnlyNote, omittedNote } from "./catalog.js";
export { escapeXml } from "./escape.js";
export type { FmtOptions } from "./fmt.js";
export { fmt } from "./fmt.js";
export type { LocationStyle } from "./location.js";
export type { SkillContentOptions } from "./skill-content.js";
export { DEFAULT_FILE_LIMIT, formatSkillContent } from "./skill-content.js";
