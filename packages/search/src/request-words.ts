import { term } from "./analyze.js";

// How the words of a request are read, beyond the analyzer's: the words that say nothing of the
// job on their own, and the words of this domain that mean the same job. All of the domain's
// rules live here, written from general knowledge of the field (file formats, the tools people
// name, what developers call things): an entry belongs only when it holds beyond any one request.

/**
 * Words of a request that carry no meaning on their own ("please find something, thanks"): left
 * out of a search that has other words, searched when there is nothing else. A skill's text
 * keeps them. "make", "help", "need" and "want" are not among them: descriptions say what a
 * skill is for in those words ("Use when you need to …"), and on both request sets leaving them
 * out lost more requests than it found.
 */
const FILLER =
  "please something anything thing things stuff just really actually maybe thanks hi hey ok okay";

/**
 * Words of one job, written `a b c` (each stands for the others) or `a b > c d` (the words on
 * the left stand for those on the right, not the other way round: the left ones also mean
 * something else). A request's word adds the others to its search at {@link EXPANSION_WEIGHT}.
 * Each line says why.
 */
const SYNONYMS: readonly string[] = [
  // Word-processor documents: the format, the app, and what people call the files.
  "document docx word > docx document",
  "docx msword",
  // Slides: the file format and the apps that show them.
  "slides slide deck presentation pptx powerpoint keynote",
  // Spreadsheets: the format and the apps; a CSV file is a sheet of rows.
  "spreadsheet sheet sheets excel xlsx workbook",
  "csv > spreadsheet",
  // PDF files and the forms in them.
  "pdf acrobat",
  "fillable > form pdf",
  // Tests: what a suite is made of; a spec is also a specification, so it only adds.
  "test tests testing",
  "spec specs unit e2e suite > test",
  "coverage untested > test",
  // Shipping a version.
  "deploy deployment ship release rollout publish",
  // Databases, by kind and by the engines people name.
  "database db sql",
  "postgres postgresql psql mysql sqlite mongo mongodb > database",
  // Signing in, and who may do what once in.
  "auth authentication login signin sso oauth",
  "authorization permission permissions rbac roles",
  // Pictures of structure, and plots of numbers.
  "diagram flowchart schematic mermaid",
  "chart plot graph visualization visualize",
  // Images and pictures.
  "image picture photo illustration",
  "screenshot > image",
  // Video.
  "video footage clip",
  // Email.
  "email mail inbox",
  // A résumé by its other name.
  "resume cv",
  // Finding why something fails.
  "debug debugging troubleshoot diagnose",
  "broken crash crashes failing fails flaky > debug bug",
  // Speed.
  "slow performance latency speed",
  // Security: weaknesses and the people who use them.
  "security vulnerability vulnerabilities vuln exploit",
  "hacker attacker attack hacked breach > security",
  "pentest pentesting > security penetration",
  // Outages and the people on call for them.
  "incident outage downtime",
  "pager paged oncall > incident alert",
  // Containers and clusters.
  "container docker containerize",
  "kubernetes k8s helm cluster",
  // Cloud providers.
  "aws amazon > aws cloud",
  "gcp azure > cloud",
  // Money spent on infrastructure.
  "cost costs bill spend spending expensive cheap > cost",
  // Taking payments.
  "payment payments pay charge checkout billing subscription invoice",
  "stripe > payment",
  // Secrets in code and configuration.
  "secret secrets credential credentials token tokens apikey",
  // Version control.
  "git commit commits branch rebase",
  // Accessibility.
  "accessibility a11y wcag",
  "blind screenreader > accessibility",
  // Phones and the apps on them.
  "mobile phone phones iphone android ios",
  // Layouts that fit the screen.
  "responsive breakpoint breakpoints > responsive layout mobile",
  // Motion in an interface.
  "animation animations animate hover transition transitions motion",
  // Web APIs and their descriptions.
  "api endpoint endpoints rest",
  "swagger openapi",
  // Written guides for operators.
  "runbook runbooks playbook playbooks procedure",
  // Documentation.
  "documentation docs readme",
  // Search engines and being found in them.
  "seo serp",
  // Advertising.
  "ads advertising advert adverts",
  // Finding customers.
  "leads prospects prospecting outreach",
  // Keeping users.
  "retention churn activation onboarding",
  // Moving data between systems.
  "etl pipeline ingest warehouse",
  // Machine-learning models and their training.
  "finetune finetuning tune tuned > finetune train model",
  "llm chatbot bot > llm model",
  // What a model is told.
  "prompt prompts instruction instructions",
  // Numbers that may be chance.
  "significance significant statistical statistics hypothesis",
  // Other languages and markets.
  "i18n localization localize translate translation international",
  // Agreements and the people who read them.
  "contract contracts agreement agreements legal nda lawyer",
  "redline redlines > tracked docx",
  // Money of a household or a business.
  "budget expense expenses accounting finance",
  // Meetings.
  "meeting meetings transcript minutes",
  // Work that runs later or on a timetable.
  "cron schedule scheduled nightly recurring queue > job schedule",
  // Getting data out of web pages.
  "scrape scraping crawl crawler",
  // Cleaning up code.
  "refactor refactoring cleanup restructure rewrite",
  // Packages a project depends on.
  "dependency dependencies upgrade bump",
  // Watching a running system.
  "monitoring observability metrics alerting alerts",
  "logs log logging",
  // Continuous integration.
  "ci pipeline workflow actions",
  // Moving from one version or place to another.
  "migrate migration migrating",
  // Printed and pinned-up pictures.
  "poster flyer banner print printable > poster design",
  // Finding and fixing the cause.
  "fix repair resolve",
  // Short versions of long texts.
  "summarize summary recap tldr digest",
  // Checking that work is right.
  "verify verification validate validation",
  // Looking over work for problems.
  "audit review inspect",
  // Making code faster.
  "faster speedup profiling profile benchmark > performance",
  // Web sites and their pages.
  "website site webpage",
  // The part of an application people see.
  "frontend ui interface ux",
  // Hiring.
  "hire hiring recruit recruiting recruiter candidate candidates",
  // Social networks and posts on them.
  "social twitter tweet linkedin instagram",
  // A company's look.
  "brand branding logo",
  "colour color palette",
  "font fonts typography typeface",
  // Code style tools.
  "lint linter linting formatter prettier eslint",
  // Languages by their short names.
  "javascript js",
  "typescript ts",
  "python py",
  // Infrastructure written as code.
  "terraform iac infrastructure",
  // What changed in a release.
  "changelog changelogs",
  // Research writing.
  "paper papers manuscript journal publication",
  "citation citations bibliography references",
  // Notebooks.
  "notebook notebooks jupyter ipynb",
  // Language models by the names people use.
  "gpt chatgpt openai claude anthropic gemini > llm",
  // Search by meaning.
  "embedding embeddings vector vectors semantic",
  // Measuring a model or a prompt.
  "eval evals evaluation benchmark benchmarks",
  // Rules a business must follow.
  "compliance regulation regulations regulatory gdpr hipaa soc2",
  // Personal data.
  "privacy pii gdpr",
  // Keeping data secret.
  "encrypt encryption decrypt cryptography",
  // Storing results for reuse.
  "cache caching redis",
  // Chat tools.
  "chat slack discord",
  // Telling people something happened.
  "notify notification notifications",
  // Driving a browser.
  "browser playwright selenium puppeteer headless",
  // Stand-ins in tests.
  "mock mocks stub stubs fixture fixtures > mock test",
  // Getting back what was lost.
  "backup restore recover recovery",
  "undo revert rollback",
  // Sound and speech.
  "audio sound voice speech podcast",
  "transcribe transcription > transcript speech",
  // Shell scripts.
  "bash shell sh zsh",
  // Money markets.
  "stock stocks trading portfolio investing",
  // Blockchains.
  "blockchain crypto web3 solidity ethereum",
  // Health care.
  "medical clinical patient patients healthcare",
  // Prices.
  "pricing price prices",
  // Rivals in a market.
  "competitor competitors competition rival rivals",
  // Raising money.
  "fundraising investor investors pitch",
  // Questions put to many people.
  "survey surveys questionnaire poll",
];

/** Weight of a word a request did not say but one of its words stands for. */
export const EXPANSION_WEIGHT = 0.5;

const FILLER_TERMS: ReadonlySet<string> = termsOf(FILLER.split(" "));

/** Query term → the terms it stands for (never itself). */
const EXPANSIONS: ReadonlyMap<string, readonly string[]> = expansionsOf(SYNONYMS);

function termsOf(list: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const word of list) {
    const t = term(word);
    if (t !== null) out.add(t);
  }
  return out;
}

function expansionsOf(lines: readonly string[]): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const line of lines) {
    const [left = "", right] = line.split(">");
    const from = termsOf(left.trim().split(/\s+/));
    const to = right === undefined ? from : termsOf(right.trim().split(/\s+/));
    for (const t of from) {
      const set = out.get(t) ?? new Set<string>();
      for (const other of to) if (other !== t) set.add(other);
      out.set(t, set);
    }
  }
  return new Map([...out].map(([t, set]) => [t, [...set].sort()]));
}

/** Whether a query term is a word that carries no meaning on its own (see {@link FILLER}). */
export function isFiller(t: string): boolean {
  return FILLER_TERMS.has(t);
}

/** The terms a query term stands for besides itself, from {@link SYNONYMS}; `[]` for most. */
export function expansionsOfTerm(t: string): readonly string[] {
  return EXPANSIONS.get(t) ?? [];
}
