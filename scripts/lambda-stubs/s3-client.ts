/**
 * Stands in for `@aws-sdk/client-s3` in the bundles of Lambdas that `infra/lambdas.ts` grants no
 * bucket (see `scripts/lambda-bundles.ts`). IAM refuses their S3 calls anyway; leaving the client
 * out keeps about 140 KB out of what each of them deploys (no cold start loads the SDK: it is
 * loaded by the first send, `functions/content/s3.ts`). Sending through this client fails at
 * once, saying where access is granted. Importing anything else from the package fails the
 * build, naming the export.
 */
const noAccess = () => Promise.reject(new Error('This Lambda has no S3 access (infra/lambdas.ts), so its bundle carries no S3 client'));

export class S3Client {
  readonly middlewareStack = { remove: (_name: string) => false, add: (..._middleware: unknown[]) => {} };
  constructor(readonly config?: unknown) {}
  send(_command: unknown): Promise<never> {
    return noAccess();
  }
  destroy(): void {}
}

class Command {
  constructor(readonly input: unknown) {}
}

export class GetObjectCommand extends Command {}
export class HeadObjectCommand extends Command {}
export class PutObjectCommand extends Command {}
export class ListObjectsV2Command extends Command {}
export class DeleteObjectCommand extends Command {}
