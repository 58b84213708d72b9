import { describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import { abortError } from "./abort.js";

describe("abortError", () => {
  it("is an ABORTED SkillError with the signal's reason as its cause", () => {
    const controller = new AbortController();
    const reason = new Error("user pressed ^C");
    controller.abort(reason);
    const error = abortError(controller.signal);
    expect(SkillError.isInstance(error)).toBe(true);
    expect(error.code).toBe("ABORTED");
    expect(error.message).toBe("Skill loading was aborted");
    expect(error.cause).toBe(reason);
  });

  it("has no cause without a signal", () => {
    const error = abortError();
    expect(error.code).toBe("ABORTED");
    expect("cause" in error).toBe(false);
  });

  it("says what stopped and keeps the details it is given", () => {
    const controller = new AbortController();
    controller.abort();
    const error = abortError(controller.signal, "Reading /s/pdf/a.md was aborted", { path: "/s/pdf/a.md" });
    expect(error.message).toBe("Reading /s/pdf/a.md was aborted");
    expect(error.path).toBe("/s/pdf/a.md");
    expect(error.cause).toBe(controller.signal.reason);
  });
});
