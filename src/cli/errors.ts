/**
 * How the CLI fails. One line on stderr, no stack trace, and an exit status a script can act on:
 *
 *   0  success
 *   1  input or runtime error (unreadable or invalid file, failed check, internal error)
 *   2  usage error (unknown flag, bad flag value, flags that do not go together)
 *   3  bench --baseline: a result regressed beyond --tolerance
 *   4  --fail-on-unschedulable (explain, schedule, plan): the answer includes a pod that does not fit
 */
export const EXIT = { ok: 0, error: 1, usage: 2, regression: 3, unschedulable: 4 } as const;

/** An expected CLI failure (bad input, failed check): printed as one line, no stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The command line itself is wrong: a flag value, or flags that do not go together (exit 2). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

/** The exit status table, appended to every command's --help. */
export const EXIT_CODES_HELP = `
Exit status:
  0  success
  1  input or runtime error (unreadable or invalid input, failed check)
  2  usage error (unknown flag, bad flag value, flags that do not go together)
  3  bench --baseline: a result regressed beyond --tolerance
  4  --fail-on-unschedulable: the answer includes a pod that does not fit`;
