import { printable } from "@skill/core";
import { type CodeParts, codeAt, excerpt, type TextFile } from "./text.js";
import type { AuditFinding } from "./types.js";

const SHELLS = "(?:(?:ba|z|k|da|fi)?sh|python[23]?|node|perl|ruby|php)";

/** Downloaded code handed straight to an interpreter. */
const REMOTE_EXEC: readonly RegExp[] = [
  // curl … | sh, wget -qO- … | sudo bash, fetch … | python3. An `env` assignment's name ends
  // at its first `=`: `\S+=` could split `a=a=a=…` at any of them, and tries every split.
  new RegExp(
    String.raw`\b(?:curl|wget|fetch)\b[^|\n]{0,400}\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:[^\s=]+=\S*\s+)*)?${SHELLS}\b(?![\w.-])`,
    "g",
  ),
  // sh -c "$(curl …)", bash <(wget …), source <(curl …)
  // Not after `-`: `-sh` is an option of the command before, and a start inside the options
  // would scan the same options again from every one of them.
  new RegExp(String.raw`(?<![\w-])${SHELLS}\s+(?:-\w+\s+)*["']?\$\(\s*(?:curl|wget)\b`, "g"),
  /(?:\b(?:(?:ba|z|k)?sh|source)|(?:^|[\s;&|])\.)\s+<\(\s*(?:curl|wget)\b/gm,
  // iwr … | iex, irm … | Invoke-Expression
  /\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|curl|wget)\b[^|\n]{0,400}\|\s*(?:iex|Invoke-Expression)\b/gi,
  // iex (New-Object Net.WebClient).DownloadString(…), iex (irm …). Blanks are read once:
  // `\s*\(*\s*` splits a run of blanks between its two `\s*` every possible way.
  /\b(?:iex|Invoke-Expression)\s*(?:\(+\s*)?(?:New-Object\s+(?:System\.)?Net\.WebClient|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b/gi,
  // exec(urlopen(…).read()), eval(requests.get(…).text)
  /\b(?:exec|eval)\s*\(\s*(?:urllib\.request\.)?(?:urlopen|requests\.get)\s*\(/g,
];

/** Paths and commands that reach secrets. */
const CREDENTIALS: readonly RegExp[] = [
  /(?:^|[^\w.-])(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE)?[/\\]?\.ssh\b(?![.-])[\w*./\\-]*/g,
  /\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)/g,
  /(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE)[/\\]\.aws\b[\w/\\.-]*|\.aws[/\\](?:credentials|config)\b/g,
  // os.path.join(home, ".aws", "credentials"), Path.home() / ".aws" / "credentials"
  /["'`]\.aws["'`]\s*[,/]\s*["'`](?:credentials|config)["'`]/g,
  /(?:~|\$HOME|\$\{HOME\})[/\\]\.(?:netrc|git-credentials|docker[/\\]config\.json|kube[/\\]config|npmrc|pypirc|gnupg|azure|config[/\\]gh[/\\]hosts\.yml|config[/\\]gcloud)\b/g,
  /\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b|\bsecret-tool\s+lookup\b|\bkeyring\.get_password\b|\blogin\.keychain(?:-db)?\b|\bGet-StoredCredential\b|\bcmdkey\s+\/list\b/g,
  /\bload_dotenv\s*\(|\bdotenv\.config\s*\(|\brequire\(\s*["']dotenv["']\s*\)\.config\s*\(|\bimport\s+["']dotenv\/config["']/g,
];

/** A `.env` file (not `.env.example` and friends, not `process.env`). */
const DOTENV =
  /(?<![\w$.\\/-])\.env(?:\.(?!example|sample|template|dist|defaults?\b)[\w-]+)?(?!\.?[\w/\\-])/g;
/** A `.env` mention counts as a read only next to a verb that reads it. */
const READS =
  /\b(?:cat|grep|rg|egrep|head|tail|less|more|source|awk|sed|cut|cp|scp|base64|xxd|open|read\w*|load\w*|Get-Content|gc|parse|look|check|upload|send)\b|(?:^|[;&|(]\s*)\.\s+\S*\.env|<\s*\S*\.env/i;
const NOT_A_READ = /exclud|ignor|\bnever\b|\bdon'?t\b|\bdo not\b/i;

/** Something that talks to the network. */
const NETWORK =
  /\b(?:curl|wget|nc|ncat|netcat|scp|sftp|rsync|telnet)\s|\bfetch\s*\(|\baxios\b|\brequests\.(?:get|post|put|patch|request)\s*\(|\burlopen\s*\(|\burllib\.request\b|\bhttpx\.\w+\s*\(|\bhttp\.client\b|\bhttps?\.(?:request|get)\s*\(|\bInvoke-(?:WebRequest|RestMethod)\b|\b(?:iwr|irm)\s|\bsocket\.(?:socket|create_connection)\b|\bXMLHttpRequest\b|\bsendBeacon\b|\bNet\.WebClient\b|\/dev\/tcp\//g;

function firstMatchPerLine(
  file: TextFile,
  patterns: readonly RegExp[],
  keep: (index: number) => boolean = () => true,
): Map<number, string> {
  const byLine = new Map<number, { index: number; text: string }>();
  for (const pattern of patterns) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(file.text); m !== null; m = pattern.exec(file.text)) {
      if (m[0] === "") {
        pattern.lastIndex++;
        continue;
      }
      // Leading context a pattern needed (a separator before `.ssh`) is not part of the quote.
      const lead = m[0].length - m[0].trimStart().replace(/^[^\w~$%./\\]/, "").length;
      const index = m.index + lead;
      if (!keep(index)) continue;
      const line = file.lineAt(index);
      const prev = byLine.get(line);
      if (prev === undefined || index < prev.index) byLine.set(line, { index, text: m[0].slice(lead) });
    }
  }
  return new Map([...byLine].map(([line, hit]) => [line, hit.text]));
}

function dotenvReads(file: TextFile, code: CodeParts | undefined): Map<number, string> {
  const found = new Map<number, string>();
  DOTENV.lastIndex = 0;
  for (let m = DOTENV.exec(file.text); m !== null; m = DOTENV.exec(file.text)) {
    const line = file.lineAt(m.index);
    if (found.has(line)) continue;
    // The verb must be near the mention and in the same piece of code: a long line is not
    // one instruction, and the prose around `.env` in "copy it to `.env`" reads nothing.
    const piece = codeAt(file, code, m.index);
    if (piece === undefined) continue;
    const text = file.text.slice(
      Math.max(piece[0], m.index - 60),
      Math.min(piece[1], m.index + m[0].length + 30),
    );
    if (READS.test(text) && !NOT_A_READ.test(text)) found.set(line, m[0]);
  }
  return found;
}

/**
 * `remote-exec`, `credential-read` and `exfil` for one text file. `code` says which parts of
 * a markdown file are code; without it the whole file is. `remote-exec` looks everywhere (the
 * model follows prose too); a credential read and a network call count only in code, since
 * prose that names `.env` or `curl` ("copy .env.example to .env") runs nothing.
 */
export function codeFindings(path: string, file: TextFile, code?: CodeParts): AuditFinding[] {
  const findings: AuditFinding[] = [];
  for (const line of firstMatchPerLine(file, REMOTE_EXEC).keys()) {
    findings.push({
      rule: "remote-exec",
      severity: "error",
      path,
      line,
      message: `runs code downloaded from the network: ${printable(JSON.stringify(excerpt(file.line(line), 80)))}`,
    });
  }
  const inCode = (index: number) => codeAt(file, code, index) !== undefined;
  const credentials = firstMatchPerLine(file, CREDENTIALS, inCode);
  for (const [line, text] of dotenvReads(file, code)) if (!credentials.has(line)) credentials.set(line, text);
  const credentialLines = [...credentials.keys()].sort((a, b) => a - b);
  for (const line of credentialLines) {
    findings.push({
      rule: "credential-read",
      severity: "warning",
      path,
      line,
      message: `reads credentials (${printable(JSON.stringify(excerpt(credentials.get(line) ?? "", 40)))})`,
    });
  }
  const first = credentialLines[0];
  if (first !== undefined) {
    const network = [...firstMatchPerLine(file, [NETWORK], inCode)].sort((a, b) => a[0] - b[0]);
    const call = network.find(([line]) => line >= first) ?? network[0];
    if (call !== undefined) {
      const [line, text] = call;
      findings.push({
        rule: "exfil",
        severity: "error",
        path,
        line,
        message: `calls the network (${printable(JSON.stringify(excerpt(text, 30)))}) in a file that reads credentials (line ${first})`,
      });
    }
  }
  return findings;
}
