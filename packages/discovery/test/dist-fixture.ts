// The built @skill/discovery, copied where uid 65534 can read it (see @skill/test-utils).
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { installBuilt as install } from "@skill/test-utils";

export { NOBODY } from "@skill/test-utils";

/** This package's folder (where `package.json` and `dist` are). */
const self = fileURLToPath(new URL("..", import.meta.url)); // the package folder, above test/

/**
 * Copies the built `@skill/discovery` and every runtime dependency (`@skill/core` among them)
 * into `<base>/node_modules`, and returns the `file:` URLs of both packages' ESM builds there.
 */
export async function installBuilt(base: string): Promise<{ discovery: string; core: string }> {
  const discovery = await install(self, base);
  return {
    discovery,
    core: pathToFileURL(join(base, "node_modules", "@skill", "core", "dist", "index.js")).href,
  };
}
