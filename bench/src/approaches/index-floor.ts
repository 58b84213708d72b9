import type { ChildOutput } from "../protocol.js";
import { scaledCatalog, untunedMiniSearch } from "../search-set.js";

type Input = { skills: number; seed: number; kind: "word-map" | "minisearch" };

// A reference's index build, first in a fresh process (the catalog is made before the clock): a bare
// word map (name and description lower-cased, split into words → skills) or untuned MiniSearch.
export async function run(input: Input): Promise<ChildOutput> {
  const skills = scaledCatalog(input.skills, input.seed);
  const docs = skills.map((s) => ({ name: s.name, description: s.description }));
  const start = performance.now();
  let terms: number;
  if (input.kind === "word-map") {
    const words = new Map<string, number[]>();
    for (const [at, doc] of docs.entries()) {
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
