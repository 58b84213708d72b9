import type { SkillPair } from "../checksum.js";

/** What a discovery approach hands back; the child turns `pairs` into a checksum after timing. */
export interface LocalOutput {
  readonly found: number;
  readonly pairs?: readonly SkillPair[];
  /** Files that were found but failed to load. */
  readonly failed?: number;
}

/** What a download approach hands back. */
export interface RemoteOutput {
  /** Skills downloaded. */
  readonly found: number;
  /** Files written. */
  readonly files?: number;
  readonly fromCache?: boolean;
  readonly skipped?: number;
}
