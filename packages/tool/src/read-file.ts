import { type AgentInfo, type ScanContext, SkillError, type SkillService } from "@skill/core";

type FileReader = (name: string, path: string, agent?: AgentInfo, ctx?: ScanContext) => Promise<Uint8Array>;

/**
 * A bundled file of a skill, through `SkillService.readFile` (core's one path rule and safe
 * reader). A @skill/core without it cannot read bundled files: that is said, not guessed at.
 */
export async function readSkillFile(
  service: SkillService,
  name: string,
  path: string,
  agent: AgentInfo,
  ctx: ScanContext,
): Promise<Uint8Array> {
  const reader = (service as unknown as { readonly readFile?: FileReader }).readFile;
  if (typeof reader !== "function") {
    throw new SkillError(
      "READ_ERROR",
      "Bundled files cannot be read: this @skill/core has no SkillService.readFile (update @skill/core)",
    );
  }
  return reader.call(service, name, path, agent, ctx);
}
