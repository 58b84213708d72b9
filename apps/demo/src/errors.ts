/** A mistake of the user's (bad config, unknown skill…): printed as one line, exit 1, no stack. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "UserError";
  }
}

/** A usage mistake (unknown flag, missing argument): exit 2. */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message, 2);
    this.name = "UsageError";
  }
}
