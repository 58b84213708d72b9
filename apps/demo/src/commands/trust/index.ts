import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { isInside, printable } from "@skill/core";
import { findWorktreeRoot } from "@skill/discovery";
import type { Context } from "../../context.js";
import { UserError } from "../../errors.js";
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
  // A folder that is gone may still be removed from the list; one to trust must exist.
  if (!opts.remove && !(await stat(folder).catch(() => undefined))?.isDirectory()) {
    throw new UserError(`No such folder: ${printable(folder)}; nothing was trusted`);
  }
  const { folders, changed } = await changeTrust(file, folder, !opts.remove);
  if (out.json) out.data({ file, folder, trusted: !opts.remove, changed, folders });
  else if (opts.remove) out.line(removed(folder, changed, folders));
  else if (!changed) out.line(`Already trusted: ${printable(folder)} (${file}).`);
  else
    out.line(
      `Trusted: ${printable(folder)}. MCP servers named by configs in it and below start from now on (${file}).`,
    );
  return 0;
}

/** What `--remove` did: the folder dropped, or why there was nothing to drop. */
function removed(folder: string, changed: boolean, left: readonly string[]): string {
  if (changed) return `No longer trusted: ${printable(folder)}`;
  const above = left.find((t) => isInside(t, folder));
  return above === undefined
    ? `Not trusted, so nothing was removed: ${printable(folder)}`
    : `${printable(folder)} is trusted through ${printable(above)}; \`skill trust --remove ${printable(above)}\` ends that`;
}
