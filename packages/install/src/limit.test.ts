import { describe, expect, it } from "vitest";
import { inOrder } from "./limit.js";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("inOrder", () => {
  it("gives results in the items' order, never more than `limit` at once", async () => {
    let running = 0;
    let most = 0;
    const result = await inOrder([30, 5, 20, 1, 10, 2], 3, async (ms, i) => {
      running++;
      most = Math.max(most, running);
      await wait(ms);
      running--;
      return `${i}:${ms}`;
    });
    expect(result).toEqual(["0:30", "1:5", "2:20", "3:1", "4:10", "5:2"]);
    expect(most).toBe(3);
  });

  it("fails with the first failure in the items' order, after every started call settled", async () => {
    const settled: number[] = [];
    const run = inOrder([0, 1, 2, 3], 4, async (i) => {
      await wait(i === 1 ? 20 : 1);
      settled.push(i);
      if (i === 1 || i === 2) throw new Error(`item ${i}`);
      return i;
    });
    await expect(run).rejects.toThrow("item 1");
    expect([...settled].sort()).toEqual([0, 1, 2, 3]);
  });

  it("returns an empty list for no items", async () => {
    expect(await inOrder([], 4, async () => 1)).toEqual([]);
  });
});
