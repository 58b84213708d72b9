import { createHash } from "node:crypto";
import { once } from "node:events";
import { crc32, createDeflateRaw, createGzip, deflateRawSync, gzipSync } from "node:zlib";

/** One member of a test archive, written exactly as given (hostile names and types included). */
export interface Member {
  readonly name: string;
  readonly body?: string | Buffer;
  /** tar type flag: "0" file, "1" hard link, "2" symlink, "3" char device, "4" block device, "5" folder, "6" FIFO. */
  readonly type?: "0" | "1" | "2" | "3" | "4" | "5" | "6";
  readonly link?: string;
  readonly mode?: number;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

/** One ustar header block. */
function tarHeader(m: Member, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(m.name, 0, 100, "utf8");
  h.write(octal(m.mode ?? (m.type === "5" ? 0o755 : 0o644), 8), 100, "ascii");
  h.write(octal(0, 8), 108, "ascii");
  h.write(octal(0, 8), 116, "ascii");
  h.write(octal(size, 12), 124, "ascii");
  h.write(octal(0, 12), 136, "ascii");
  h.write("        ", 148, "ascii");
  h.write(m.type ?? "0", 156, "ascii");
  if (m.link) h.write(m.link, 157, 100, "utf8");
  h.write("ustar\0", 257, "ascii");
  h.write("00", 263, "ascii");
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return h;
}

/** A raw tar (uncompressed) of `members`. */
export function tar(members: readonly Member[]): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    const body = m.type === undefined || m.type === "0" ? Buffer.from(m.body ?? "") : Buffer.alloc(0);
    parts.push(tarHeader(m, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function tarGz(members: readonly Member[]): Buffer {
  return gzipSync(tar(members));
}

/** Compresses `size` zero bytes between `head` and `tail`, streaming (never `size` bytes in memory). */
async function squeeze(
  stream: ReturnType<typeof createGzip>,
  head: Buffer,
  size: number,
  tail: Buffer,
  onZeros?: (chunk: Buffer) => void,
): Promise<Buffer> {
  const out: Buffer[] = [];
  stream.on("data", (c: Buffer) => out.push(c));
  const ended = once(stream, "end");
  stream.write(head);
  const zero = Buffer.alloc(1 << 20);
  for (let left = size; left > 0; left -= zero.length) {
    const chunk = left >= zero.length ? zero : zero.subarray(0, left);
    onZeros?.(chunk);
    if (!stream.write(chunk)) await once(stream, "drain");
  }
  stream.end(tail);
  await ended;
  return Buffer.concat(out);
}

/** A tar.gz of SKILL.md and one file of `size` zero bytes (a bomb: ~1 KB per MB compressed). */
export function tarGzBomb(size: number): Promise<Buffer> {
  const head = Buffer.concat([
    tar([{ name: "SKILL.md", body: skillBody("bomb") }]).subarray(0, -1024),
    tarHeader({ name: "zeros.bin" }, size),
  ]);
  return squeeze(createGzip({ level: 1 }), head, size, Buffer.alloc(((512 - (size % 512)) % 512) + 1024));
}

/** A zip of SKILL.md and one deflated member of `size` zero bytes. */
export async function zipBomb(size: number): Promise<Buffer> {
  let crc = 0;
  const data = await squeeze(
    createDeflateRaw({ level: 1 }) as unknown as ReturnType<typeof createGzip>,
    Buffer.alloc(0),
    size,
    Buffer.alloc(0),
    (chunk) => {
      crc = crc32(chunk, crc);
    },
  );
  return zip([
    { name: "SKILL.md", body: skillBody("bomb") },
    { name: "zeros.bin", raw: { data, crc, size } },
  ]);
}

export function skillBody(name: string, description = `The ${name} skill`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
}

export interface ZipMember {
  readonly name: string;
  readonly body?: string | Buffer;
  /** Unix mode with its type bits (0o100644 file, 0o120777 symlink, 0o010644 FIFO…). */
  readonly mode?: number;
  readonly deflate?: boolean;
  /** A different name written in the local header only. */
  readonly localName?: string;
  /** Already-deflated data with the CRC and size of what it inflates to. */
  readonly raw?: { readonly data: Buffer; readonly crc: number; readonly size: number };
}

/** A zip of `members`, written by hand so hostile layouts are possible. */
export function zip(members: readonly ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const body = Buffer.from(m.body ?? "");
    const data = m.raw ? m.raw.data : m.deflate ? deflateRawSync(body) : body;
    const name = Buffer.from(m.name, "utf8");
    const localName = Buffer.from(m.localName ?? m.name, "utf8");
    const crc = m.raw ? m.raw.crc : crc32(body);
    const size = m.raw ? m.raw.size : body.length;
    const method = m.deflate || m.raw ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(localName.length, 26);
    locals.push(local, localName, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((m.mode ?? (m.name.endsWith("/") ? 0o40755 : 0o100644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + localName.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

export function digestOf(bytes: string | Buffer): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}
