import type { ChildOutput } from "../protocol.js";
import { scaledCatalog, untunedMiniSearch } from "../search-set.js";

export interface IndexFloorInput {
  readonly skills: number;
  readonly seed: number;
  /**
   * `word-map`: the least an index of words does: name and description lower-cased and split into
   * words, one `Map` from word to the skills that have it (no fields, counts, stems or prefix tree).
   * `minisearch`: MiniSearch as its README sets it up (name and description), `addAll`.
   */
  readonly kind: "word-map" | "minisearch";
}

/** A reference's first index build in a fresh process, timed alone (the catalog is made before the clock). */
export async function run(input: IndexFloorInput): Promise<ChildOutput> {
  const skills = scaledCatalog(input.skills, input.seed);
  const docs = skills.map((s) => ({ name: s.name, description: s.description }));
  const start = performance.now();
  let terms: number;
  if (input.kind === "word-map") {
    const words = new Map<string, number[]>();
    for (let at = 0; at < docs.length; at++) {
      const doc = docs[at] as { name: string; description: string };
      for (const word of `${doc.name} ${doc.description}`.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
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
  return { found: docs.length, wallMs: performance.now() - start, samples: { terms } };
}
