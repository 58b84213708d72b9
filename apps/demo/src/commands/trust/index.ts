import { resolve } from "node:path";
import { findWorktreeRoot } from "@skill/discovery";
import type { Context } from "../../context.js";
import { changeTrust, realFolder, trustedFolders, trustFile } from "../../trust.js";

/** `skill trust [DIR]`: record (or, with --remove, drop) a folder whose configs may start MCP servers. */
export async function run(
  ctx: Context,
  dir: string | undefined,
  opts: { readonly remove?: boolean; readonly list?: boolean },
): Promise<number> {
  const file = trustFile(ctx.home, ctx.env);
  const { out } = ctx;
  if (opts.list) {
    const folders = await trustedFolders(file);
    if (out.json) out.data({ file, folders });
    else if (folders.length === 0) out.line(`No trusted folders (${file}).`);
    else for (const folder of folders) out.line(folder);
    return 0;
  }
  const folder = await realFolder(
    dir === undefined ? (findWorktreeRoot(ctx.cwd) ?? ctx.cwd) : resolve(ctx.cwd, dir),
  );
  const folders = await changeTrust(file, folder, !opts.remove);
  if (out.json) out.data({ file, folder, trusted: !opts.remove, folders });
  else if (opts.remove) out.line(`No longer trusted: ${folder}`);
  else
    out.line(`Trusted: ${folder}. MCP servers named by configs in it and below start from now on (${file}).`);
  return 0;
}
