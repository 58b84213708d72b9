import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { progressLine } from "./progress.js";

/** A stream that says it is a terminal 80 columns wide (as a TTY stderr does), keeping what is written. */
function terminal(isTTY = true) {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 80 }) as PassThrough & {
    isTTY: boolean;
    columns: number;
  };
  let written = "";
  stream.on("data", (chunk) => {
    written += String(chunk);
  });
  return { stream: stream as unknown as NodeJS.WriteStream, written: () => written };
}

describe("progressLine", () => {
  it("draws nothing for work shorter than its delay", async () => {
    const tty = terminal();
    const progress = progressLine("work {value}/{total}", { stream: tty.stream, afterMs: 200 });
    progress.total(3);
    progress.update(2);
    await sleep(50);
    progress.stop();
    await sleep(250);
    expect(tty.written()).toBe("");
  });

  it("draws, once the work has run past its delay, from where the work has got to, and clears at the end", async () => {
    const tty = terminal();
    const progress = progressLine("work {value}/{total} {detail}", { stream: tty.stream, afterMs: 40 });
    progress.total(10);
    progress.update(3, { detail: "pdf" });
    await sleep(150);
    expect(tty.written()).toContain("work 3/10 pdf");
    progress.increment({ detail: "xlsx" });
    progress.note({ detail: "docx" });
    await sleep(150);
    progress.stop();
    expect(tty.written()).toMatch(/work 4\/10 (xlsx|docx)/);
    // Cleared at the end: the last thing written erases the line.
    const written = tty.written();
    expect(written).toContain("\u001b[2K");
    expect(written.slice(written.lastIndexOf("\u001b[2K"))).not.toContain("work");
  });

  it("draws nothing on a stream that is not a terminal, nor when it is turned off", async () => {
    const pipe = terminal(false);
    const off = terminal();
    const a = progressLine("work {value}/{total}", { stream: pipe.stream, afterMs: 10 });
    const b = progressLine("work {value}/{total}", { stream: off.stream, afterMs: 10, enabled: false });
    for (const p of [a, b]) {
      p.total(5);
      p.update(1);
    }
    await sleep(100);
    a.stop();
    b.stop();
    expect(pipe.written()).toBe("");
    expect(off.written()).toBe("");
  });
});
