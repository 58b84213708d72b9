export { auditRegistrySkill, auditSkill, DEFAULT_AUDIT_LIMITS } from "./audit.js";
export { normalizeTools } from "./capabilities.js";
export { diffCapabilities } from "./diff.js";
export type {
  AuditFinding,
  AuditOptions,
  AuditResult,
  AuditRule,
  Capabilities,
  CapabilityDiff,
} from "./types.js";
