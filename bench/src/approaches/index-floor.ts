import type { ChildOutput } from "../protocol.js";
import { scaledCatalog, untunedMiniSearch } from "../search-set.js";

export interface IndexFloorInput {
  /** Skills indexed: the search group's timed catalog. */
  readonly skills: number;
  readonly seed: number;
  /**
   * `word-map`: the least an index of words does: each skill's name and description lower-cased
   * and split into words, one `Map` from word to the positions of the skills that have it (no
   * fields, counts, stemming or prefix tree). `minisearch`: MiniSearch as its README sets it up
   * (name and description, default options), `addAll`.
   */
  readonly kind: "word-map" | "minisearch";
  /** Where catalog.json is; the bench's default when absent. */
  readonly fixtures?: string;
}

const WORD_BREAK = /[^\p{L}\p{N}]+/u;

/**
 * The first index build of a fresh process by a reference, timed alone (the catalog is made
 * before the clock): what `createSkillIndex`'s first build is compared with on the same machine.
 */
export async function run(input: IndexFloorInput): Promise<ChildOutput> {
  const docs = scaledCatalog(input.skills, input.seed, input.fixtures).map(({ name, description }) => ({
    name,
    description,
  }));
  const cpu = process.cpuUsage();
  const start = performance.now();
  let terms: number;
  if (input.kind === "word-map") {
    const words = new Map<string, number[]>();
    for (let at = 0; at < docs.length; at++) {
      const doc = docs[at] as { name: string; description: string };
      for (const word of `${doc.name} ${doc.description}`.toLowerCase().split(WORD_BREAK)) {
        if (word === "") continue;
        const list = words.get(word);
        if (list === undefined) words.set(word, [at]);
        else if (list[list.length - 1] !== at) list.push(at);
      }
    }
    terms = words.size;
  } else {
    terms = untunedMiniSearch(docs).termCount;
  }
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { found: docs.length, wallMs, cpuMs: (used.user + used.system) / 1000, samples: { terms } };
}
