import { type ErrorCode, errorStatus } from '../core/errors.ts';

/**
 * Failures the client reports. A server error keeps the server's code (docs/api.md §5), so a user
 * sees `payment_required` in the terminal exactly as the API said it; the codes below are the
 * client's own, for what only the client can notice.
 */
export type ClientCode =
  | 'usage'
  | 'not_installed'
  | 'folder_exists'
  | 'no_matching_version'
  | 'lockfile_invalid'
  | 'untrusted_dir'
  | 'config_invalid'
  | 'io_error'
  | 'network_error'
  | 'bad_response'
  | 'integrity_mismatch'
  | 'bad_signature'
  | 'unsafe_filename'
  | 'unsafe_path'
  | 'suspicious_skill'
  | 'no_provenance'
  | 'consent_declined'
  | 'consent_required';

export type CliCode = ErrorCode | ClientCode;

/** The documented exit codes: 0 ok, 1 user error, 2 network or server, 3 integrity failure. */
export const EXIT = { ok: 0, user: 1, network: 2, integrity: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const clientExit: Record<ClientCode, ExitCode> = {
  usage: EXIT.user,
  not_installed: EXIT.user,
  folder_exists: EXIT.user,
  no_matching_version: EXIT.user,
  lockfile_invalid: EXIT.user,
  untrusted_dir: EXIT.user,
  config_invalid: EXIT.user,
  io_error: EXIT.user,
  network_error: EXIT.network,
  bad_response: EXIT.network,
  integrity_mismatch: EXIT.integrity,
  bad_signature: EXIT.integrity,
  unsafe_filename: EXIT.integrity,
  unsafe_path: EXIT.integrity,
  suspicious_skill: EXIT.user,
  no_provenance: EXIT.user,
  consent_declined: EXIT.user,
  consent_required: EXIT.user,
};

export class CliError extends Error {
  constructor(
    readonly code: CliCode | string,
    message: string,
    readonly options: {
      details?: unknown;
      hint?: string;
      status?: number;
      /** Seconds a `429` asks the client to wait (its `Retry-After`). */
      retryAfter?: number;
    } = {},
  ) {
    super(message);
    this.name = 'CliError';
  }

  /**
   * Server answers: a 4xx is something the user can change (1), except 429, which like a 5xx
   * asks them to try again later (2).
   */
  get exitCode(): ExitCode {
    // Own keys only: a server may answer with any code, `constructor` and `toString` included.
    if (Object.hasOwn(clientExit, this.code)) return clientExit[this.code as ClientCode];
    const status = this.options.status ?? (Object.hasOwn(errorStatus, this.code) ? errorStatus[this.code as ErrorCode] : undefined);
    if (status !== undefined && status >= 400 && status < 500 && status !== 429) return EXIT.user;
    return EXIT.network;
  }
}

export const usage = (message: string, hint?: string) => new CliError('usage', message, { hint });
export const integrityMismatch = (message: string, details?: unknown) => new CliError('integrity_mismatch', message, { details });
