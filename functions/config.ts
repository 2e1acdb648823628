import { limits } from '#core/limits';

/** Everything the handlers read from the environment, read once. */
export interface Config {
  region: string;
  tableName: string;
  contentBucket: string;
  staticBucket: string;
  /** Set locally to the embedded dynalite; unset on AWS. */
  dynamoEndpoint?: string;
  /** Set locally to the embedded s3rver; unset on AWS. */
  s3Endpoint?: string;
  /** Origin that session-authenticated writes must come from; default: the request's own origin. */
  siteOrigin?: string;
  devLogin: boolean;
  /** Publishes per rolling window and author; raised only by benchmarks. */
  publishLimit: number;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    region: env.AWS_REGION ?? 'us-east-1',
    tableName: env.TABLE_NAME ?? 'skillpress',
    contentBucket: env.CONTENT_BUCKET ?? 'skillpress-content',
    staticBucket: env.STATIC_BUCKET ?? 'skillpress-static',
    dynamoEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    s3Endpoint: env.S3_ENDPOINT || undefined,
    siteOrigin: env.SITE_ORIGIN || undefined,
    devLogin: env.SKILLPRESS_DEV_LOGIN === '1',
    publishLimit: positiveInt(env.SKILLPRESS_PUBLISH_LIMIT) ?? limits.publishPerWindow,
  };
}

function positiveInt(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
