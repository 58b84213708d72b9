// A setup file of every test project (the root vitest.config.ts): a test that starts a child
// process — the built CLI or package, a server, git, a child run as another user — must carry
// the `slow` tag, so that `pnpm test:fast` leaves it out. The guard watches node:child_process
// and fails a test that starts one untagged, naming what it started. Outside a test (a
// beforeAll), it can tell only in the fast loop, where no slow suite runs its hooks.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { afterAll, afterEach, beforeEach, inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** True under `pnpm test:fast` (`vitest --mode src`): slow tests are filtered out. */
    fastLoop: boolean;
  }
}

const STARTERS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;

interface GuardState {
  /** Set while a test (or its beforeEach/afterEach) runs: is it tagged slow? */
  current: { slow: boolean } | undefined;
  /** What an untagged test started, since its beforeEach. */
  inTest: string[];
  /** What was started outside any test (hooks, leftovers), since the file began. */
  outside: string[];
}

const KEY = Symbol.for("@skill/test-utils slow guard");
const slot = globalThis as { [KEY]?: GuardState };

/** Wraps node:child_process once per worker; returns the state the wrappers report to. */
function install(): GuardState {
  const existing = slot[KEY];
  if (existing) return existing;
  const state: GuardState = { current: undefined, inTest: [], outside: [] };
  const methods = childProcess as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of STARTERS) {
    const original = methods[name] as (...args: unknown[]) => unknown;
    const wrapper = function (this: unknown, ...args: unknown[]) {
      const started = `${name}(${describeCommand(args)})`;
      if (state.current === undefined) state.outside.push(started);
      else if (!state.current.slow) state.inTest.push(started);
      return original.apply(this, args);
    };
    // Keeps util.promisify.custom (exec, execFile) and the like.
    Object.defineProperties(wrapper, Object.getOwnPropertyDescriptors(original));
    methods[name] = wrapper;
  }
  syncBuiltinESMExports();
  slot[KEY] = state;
  return state;
}

function describeCommand(args: readonly unknown[]): string {
  const [file, rest] = args;
  const words = [String(file), ...(Array.isArray(rest) ? rest.map(String) : [])];
  const text = words.join(" ").replace(/\s+/g, " ");
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const state = install();
const fastLoop = inject("fastLoop") === true;
state.current = undefined;
state.inTest.length = 0;
state.outside.length = 0;

beforeEach(({ task }) => {
  state.current = { slow: task.tags?.includes("slow") === true };
});

afterEach(() => {
  state.current = undefined;
  const started = state.inTest.splice(0);
  if (started.length > 0)
    throw new Error(
      `This test starts a child process without the "slow" tag: ${started.join(", ")}. ` +
        `Tag it (or its describe) { tags: ["slow"] }, so that test:fast leaves it out.`,
    );
});

afterAll(() => {
  const started = state.outside.splice(0);
  if (fastLoop && started.length > 0)
    throw new Error(
      `A hook of a suite that test:fast runs starts a child process: ${started.join(", ")}. ` +
        `Tag the suite that needs it { tags: ["slow"] }.`,
    );
});
