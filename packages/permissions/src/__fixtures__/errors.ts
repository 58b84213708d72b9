import { SkillError } from "@skill/core";

/** Runs `run` and returns the SkillError it throws; fails when it throws nothing or something else. */
export function skillErrorFrom(run: () => unknown): SkillError {
  try {
    run();
  } catch (error) {
    if (SkillError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a SkillError, but nothing was thrown");
}
