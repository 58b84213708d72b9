import { readInside, stageSkillFolder } from "@skill/core";
import { type HashedFile, hashedSkillFiles } from "@skill/lock";

/**
 * Writes a copy of the skill folder `from` at `dest`, replacing it whole, through core's one
 * writer (`stageSkillFolder`, bounded by `within`): the files `computedHash` covers (regular
 * files, `.git`, links and `node_modules` left out), exec bits kept, so the copy hashes as
 * `from` does. Given `files` (what `hashFolder` of `from` read), it writes those very bytes;
 * otherwise each file is read through core's reader, inside `from`.
 */
export async function copySkillFolder(
  from: string,
  dest: string,
  options: { readonly within: string; readonly files?: readonly HashedFile[]; readonly signal?: AbortSignal },
): Promise<void> {
  const stage = await stageSkillFolder(dest, {
    within: options.within,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  try {
    if (options.files !== undefined) {
      for (const file of options.files)
        await stage.write(file.path, file.bytes, { executable: file.executable });
    } else {
      for (const file of await hashedSkillFiles(from)) {
        const bytes = await readInside(from, file.path, {
          maxBytes: Number.POSITIVE_INFINITY,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        await stage.write(file.path, bytes, { executable: file.executable });
      }
    }
    await stage.commit();
  } catch (error) {
    await stage.abort();
    throw error;
  }
}
