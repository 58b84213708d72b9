import { gzipSync } from "node:zlib";

/** A file of a skill, with the bytes that are hashed and packed. */
export interface Packed {
  readonly rel: string;
  readonly bytes: Uint8Array;
  readonly executable: boolean;
}

/**
 * A `.tar.gz` of `files` that is the same bytes wherever and whenever it is built: entries
 * sorted, no folders, mtime 0, owner 0:0 without names, mode 0644 (0755 when executable), and a
 * gzip header without time or OS.
 */
export async function deterministicTarGz(files: readonly Packed[]): Promise<Buffer> {
  const { Header, Pax } = await import("tar");
  const blocks: Buffer[] = [];
  for (const file of files) {
    const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
    const data = {
      path: file.rel,
      mode: file.executable ? 0o755 : 0o644,
      uid: 0,
      gid: 0,
      size: bytes.length,
      mtime: new Date(0),
      type: "File" as const,
      uname: "",
      gname: "",
    };
    const header = new Header(data);
    const block = Buffer.alloc(512);
    if (header.encode(block)) blocks.push(new Pax({ path: file.rel }).encode());
    blocks.push(block, bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const gz = gzipSync(Buffer.concat(blocks), { level: 9 });
  gz[9] = 0xff; // OS: unknown, so the bytes do not depend on the platform that built them
  return gz;
}
