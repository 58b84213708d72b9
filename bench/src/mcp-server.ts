// `node mcp-server.js <tree>`: serves a generated tree over MCP on stdio with @skill/mcp's
// `serveStdio`, as `skill serve-mcp` does, for the bench's tests (which must not depend on the
// CLI being built). The bench itself measures `skill serve-mcp`.
import { SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import { serveStdio } from "@skill/mcp/stdio";
import { layoutOf } from "./layout.js";

const tree = process.argv[2];
if (!tree) throw new Error("usage: node mcp-server.js <tree folder>");
const layout = layoutOf(tree);
const service = new SkillService({
  sources: discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths }),
});
await service.discoverAndLoad();
await serveStdio(service, { name: "bench" });
