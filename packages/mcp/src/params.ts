import { ProtocolError } from "@modelcontextprotocol/server";
import { quote } from "@skill/core";
import { z } from "zod/v4";
import { found } from "./options.js";
import { INVALID_PARAMS } from "./protocol.js";

/**
 * Params of every method the extension answers, as the SDK's 3-argument `setRequestHandler`
 * takes them: any object. Each field is checked by hand, so a wrong one is answered `-32602`
 * with one sentence, not a validator's dump (nor `-32603`, as the SDK answers a spec method).
 */
export const AnyParams = z.looseObject({});

/** Characters of a client's URI or cursor quoted back in an error: a 1 MiB one is not echoed whole. */
const QUOTED = 200;

export function invalid(message: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, message);
}

/** A URI or cursor a client sent, quoted (truncated, escaped) for an error message. */
export function quoteParam(value: string): string {
  return quote(value, QUOTED);
}

function stringParam(method: string, params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || typeof value === "string") return value;
  throw invalid(`Invalid params for ${method}: ${name} must be a string, found ${found(value)}`);
}

/** `params.uri`, a string, or `-32602`. */
export function uriParam(method: string, params: Record<string, unknown>): string {
  const uri = stringParam(method, params, "uri");
  if (uri === undefined) throw invalid(`Invalid params for ${method}: uri is missing (expected a string)`);
  return uri;
}

/** `params.cursor`, a string or absent, or `-32602`. */
export function cursorParam(method: string, params: Record<string, unknown> | undefined): string | undefined {
  return params === undefined ? undefined : stringParam(method, params, "cursor");
}
