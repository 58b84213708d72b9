import { readlinkSync } from "node:fs";
import { type Diagnostic, errnoOf, errorMessage, type Logger, type SkippedPath } from "@skill/core";
import type { SkipReason } from "./scan-options.js";

/**
 * Where a scan reports: each path passed over on purpose (`onSkip`), and each warning, to
 * `onWarning` as a finding when given, else to the logger.
 */
export class ScanReport {
  readonly logger: Logger;
  readonly #onWarning: ((diagnostic: Diagnostic) => void) | undefined;
  readonly #onSkip: ((skipped: SkippedPath) => void) | undefined;

  constructor(
    logger: Logger,
    onWarning: ((diagnostic: Diagnostic) => void) | undefined,
    onSkip: ((skipped: SkippedPath) => void) | undefined,
  ) {
    this.logger = logger;
    this.#onWarning = onWarning;
    this.#onSkip = onSkip;
  }

  notAFile(path: string, found: string): void {
    this.warn("skill-file-not-a-file", `Skipping ${path}: expected a SKILL.md file, found ${found}`, path);
  }

  unreadable(path: string, error: unknown): void {
    const code = errnoOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      this.warn("folder-vanished", `Folder ${path} vanished during the skill scan`, path, code);
    } else if (code === "EACCES" || code === "EPERM") {
      this.warn(
        "folder-unreadable",
        `Cannot read folder ${path} (permission denied); skills inside it are skipped`,
        path,
        code,
      );
    } else {
      this.warn(
        "folder-unreadable",
        `Cannot read folder ${path} (${errorMessage(error)}); skills inside it are skipped`,
        path,
        code,
      );
    }
  }

  brokenLink(path: string, error: unknown): void {
    const code = errnoOf(error);
    if (code === "ELOOP") {
      this.skip(path, "symlink-loop");
      this.warn("symlink-loop", `Skipping symlink loop ${path}: it resolves back to itself`, path, code);
    } else if (code === "ENOENT" || code === "ENOTDIR") {
      this.skip(path, "dangling-symlink");
      let target = "";
      try {
        target = ` -> ${readlinkSync(path)}`;
      } catch {
        // The link itself vanished: the message still names it.
      }
      this.warn(
        "symlink-dangling",
        `Skipping dangling symlink ${path}${target}: its target does not exist`,
        path,
        code,
      );
    } else {
      this.warn("symlink-unreadable", `Cannot follow symlink ${path} (${errorMessage(error)})`, path, code);
    }
  }

  skip(path: string, reason: SkipReason): void {
    if (this.#onSkip) this.#onSkip({ path, reason });
  }

  warn(rule: string, message: string, path: string, errno?: string): void {
    if (this.#onWarning) this.#onWarning({ code: rule, severity: "warning", message, path });
    else this.logger.warn(message, errno === undefined ? { code: rule, path } : { code: rule, errno, path });
  }
}
