import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';

/**
 * Verifies a CI's OIDC ID token (a JWT) with `jose`, against the JSON Web Key Set its issuer
 * publishes (found through the issuer's `/.well-known/openid-configuration`, as OIDC discovery
 * says). Checks the signature (asymmetric algorithms only: `alg: none` and shared-secret
 * algorithms never verify), `iss`, `aud`, and `exp`, `nbf` and `iat` with 60 s of skew either way
 * (an `iat` in the future is refused too). Every refusal names the claim that failed. The key set
 * is cached and fetched again when a token names a key it lacks (the issuer rotated), at most once
 * per cool-down. This module and `jose` are loaded on the first exchange a process serves.
 */

/** A token refused, and which of its claims (or its signature, key, algorithm, form) failed. */
export class OidcRefusal extends Error {
  constructor(
    readonly claim: string,
    message: string,
  ) {
    super(message);
    this.name = 'OidcRefusal';
  }
}

export const CLOCK_SKEW_SECONDS = 60;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

export interface OidcVerifierOptions {
  issuer: string;
  /** How long a key set fetched for a new key is kept before a token naming an unknown key fetches it again. */
  jwksCooldownMs: number;
  now: () => Date;
  fetch?: typeof fetch;
}

export class OidcVerifier {
  private jwks?: Promise<ReturnType<typeof createRemoteJWKSet>>;

  constructor(private readonly options: OidcVerifierOptions) {}

  /** The token's verified claims, or an {@link OidcRefusal}. */
  async verify(token: string, audience: string): Promise<JWTPayload> {
    const now = this.options.now();
    let payload: JWTPayload;
    try {
      const { payload: verified } = await jwtVerify(token, await this.keySet(), {
        issuer: this.options.issuer,
        audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['exp', 'iat', 'jti'],
        currentDate: now,
      });
      payload = verified;
    } catch (error) {
      throw refusalOf(error);
    }
    if ((payload.iat as number) > now.getTime() / 1000 + CLOCK_SKEW_SECONDS) throw new OidcRefusal('iat', 'the token was issued in the future');
    return payload;
  }

  private keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.jwks ??= this.discover().catch((error: unknown) => {
      this.jwks = undefined;
      throw error;
    });
    return this.jwks;
  }

  /** The issuer's `jwks_uri`, from its discovery document; it must be on the issuer's own origin. */
  private async discover(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const fetchImpl = this.options.fetch ?? fetch;
    const res = await fetchImpl(`${this.options.issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) throw new Error(`the OIDC issuer's discovery document answered ${res.status}`);
    const { jwks_uri: jwksUri } = (await res.json()) as { jwks_uri?: unknown };
    if (typeof jwksUri !== 'string' || new URL(jwksUri).origin !== new URL(this.options.issuer).origin)
      throw new Error("the OIDC issuer's discovery document names no jwks_uri of its own");
    return createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: this.options.jwksCooldownMs, timeoutDuration: 5000 });
  }
}

function refusalOf(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new OidcRefusal(error.claim, `the token's ${error.claim} says it has expired`);
  if (error instanceof errors.JWTClaimValidationFailed) return new OidcRefusal(error.claim, `the token's ${error.claim} claim is wrong: ${error.message}`);
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new OidcRefusal('signature', "the token's signature does not verify with the issuer's keys");
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return new OidcRefusal('kid', 'the token names no key of the issuer');
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return new OidcRefusal('alg', "the token's algorithm is not accepted (asymmetric signatures only)");
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return new OidcRefusal('token', 'the token is not a signed JWT');
  // The issuer unreachable, a key set that is not one: not the caller's fault, not a verdict on the token.
  return error instanceof Error ? error : new Error(String(error));
}
