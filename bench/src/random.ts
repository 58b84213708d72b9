/** A seeded pseudo-random source (mulberry32): the same seed always yields the same sequence. */
export class Random {
  constructor(private state: number) {}

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
}

/** Lowercase ASCII words, safe in any YAML scalar. */
const WORDS = (
  "able about access account action adapter agent align analysis answer api archive array asset audit " +
  "backend batch benchmark binary branch browser buffer build bundle cache call canvas catalog change " +
  "chart check chunk client cloud code column command commit compare compile component config connect " +
  "container content context convert copy create cursor dashboard data database debug deploy design " +
  "detect diagram diff document docker domain draft edit email encode endpoint engine error event excel " +
  "export extract feature fetch field figure file filter folder font form format frame function graph " +
  "grid guide handle header helper image import index input install invoice issue job json kernel " +
  "label layout lint list load local log manifest map markdown merge message metric migrate model " +
  "module monitor network node note notebook object option order output package page parse patch " +
  "path pdf pipeline plan plugin policy preview print process profile project prompt query queue " +
  "read record refactor release render report request resolve resource review route rule run sample " +
  "scan schema script search secret section server service session setting sheet shell signal slide " +
  "snapshot source spec sql stack state status storage stream style summary table task template test " +
  "text theme ticket token tool trace track transform tree type update upload user validate value " +
  "version view watch web widget window workflow write yaml"
).split(" ");

export const word = (random: Random): string => random.pick(WORDS);

/** A sentence of plain prose: a capital letter, words, commas, a full stop. Never `: ` nor `#`. */
export function sentence(random: Random, words = random.int(6, 16)): string {
  const parts: string[] = [];
  for (let i = 0; i < words; i++) {
    const w = word(random);
    if (i === 0) parts.push(w.charAt(0).toUpperCase() + w.slice(1));
    else parts.push(i > 1 && i < words - 1 && random.chance(0.08) ? `${w},` : w);
  }
  return `${parts.join(" ")}.`;
}

/** Sentences until the text is at least `min` characters long, cut on a space to at most `max`. */
export function prose(random: Random, min: number, max: number): string {
  let text = sentence(random);
  while (text.length < min) text += ` ${sentence(random)}`;
  return text.length <= max ? text : `${text.slice(0, text.lastIndexOf(" ", max - 1)).replace(/,$/, "")}.`;
}

/** 64 KB of prose to slice file contents from cheaply. */
export function textPool(random: Random): string {
  let pool = "";
  while (pool.length < 64 * 1024) pool += `${prose(random, 200, 600)}\n\n`;
  return pool;
}

/** `length` characters (at most the pool's) of the pool, from a random offset, wrapping around. */
export function poolSlice(random: Random, pool: string, length: number): string {
  const at = random.int(0, pool.length - 1);
  const out = pool.slice(at, at + length);
  return out + pool.slice(0, length - out.length);
}

export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const w of text.split(" ")) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + w.length <= width) lines[lines.length - 1] = `${last} ${w}`;
    else lines.push(w);
  }
  return lines;
}
