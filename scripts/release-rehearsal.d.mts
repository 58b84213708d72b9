/** What the first ```sh block of a README installs: the names after `npm install`. */
export function installSpecs(readme: string): string[];
/** The first ```ts block of a README. */
export function firstTsBlock(readme: string): string | undefined;
