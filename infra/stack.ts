import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotations, Arn, ArnFormat, Aws, CfnOutput, Duration, Fn, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { KinesisEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secrets from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as sfnTasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { Construct } from 'constructs';
import { CDN_LOG_FIELDS } from '../core/cdn-log.ts';
import { DATA_CONTENT_SECURITY_POLICY, SITE_CONTENT_SECURITY_POLICY } from '../core/security-headers.ts';
import { CATALOG_KEY } from '../core/static-paths.ts';
import { DomainError } from '../core/errors.ts';
import { EXPIRING_CONTENT } from '../functions/content/expiring-content.ts';
import { EDGE_SECRET_HEADER } from '../functions/http/client.ts';
import { domainErrorAnswer } from '../functions/http/errors.ts';
import { tableKeys } from '../functions/store/db.ts';
import { prefix } from '../functions/store/keys.ts';
import { bucketActions, tableActions } from './access.ts';
import { ApiRoutes } from './api-routes.ts';
import { FLOW_LOGS_PREFIX, OBSERVER_STATE_MACHINE_ENV, observerStateMachineName, Sandbox } from './sandbox.ts';
import { bundleDir, type LambdaSpec, lambdas as allLambdas, SANDBOX_CONTEXT_DIR } from './lambdas.ts';
import { pascal } from './names.ts';

/**
 * Skillpress on AWS (docs/architecture.md): the single DynamoDB table, the private content and
 * static buckets, one Lambda per concern behind an HTTP API, and CloudFront in front of both,
 * serving the static registry, bundles, catalog and site from S3 and only `/api/*` from code.
 *
 * Synthesis needs no AWS account, no Docker and no network: the Lambdas are the bundles
 * `npm run build` writes under dist/functions, taken as they are.
 */
export interface SkillpressStackProps extends StackProps {
  /** Where dist/functions is; the repository root by default. */
  bundleRoot?: string;
  /** The Lambdas to deploy; `infra/lambdas.ts` by default. */
  lambdas?: readonly LambdaSpec[];
  /** The GitHub OAuth app's client id (not secret); GitHub sign-in is off without it. */
  githubClientId?: string;
  /** `owner/name` of the repository whose workflow builds the site; dispatch is off without it. */
  siteRepo?: string;
  siteWorkflow?: string;
  siteWorkflowRef?: string;
  /** Comma-separated logins of the admins who moderate reports and quarantine; none without it. */
  admins?: string;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** Names of the secrets the operator fills in after the first deploy (docs/deploy.md). */
export const secretNames = {
  githubClientSecret: 'skillpress/github-oauth-client-secret',
  siteBuildToken: 'skillpress/site-build-token',
  stripeSecretKey: 'skillpress/stripe-secret-key',
  stripeWebhookSecret: 'skillpress/stripe-webhook-secret',
  githubImportToken: 'skillpress/github-import-token',
  importKey: 'skillpress/import-webhook-key',
} as const;

/** Edge cache lifetimes, seconds (docs/api.md §11). */
/** Where CloudFront asks the API for a site page the static bucket does not have (the site-pages Lambda's routes). */
export const SITE_PAGES_ORIGIN_PATH = '/api/pages';

export const edgeTtl = {
  catalog: 300,
  registry: 300,
  site: 300,
  immutable: 31_536_000,
} as const;

export class SkillpressStack extends Stack {
  readonly table: dynamodb.Table;
  readonly logBucket: s3.Bucket;
  readonly functions = new Map<string, lambda.Function>();
  /** The HTTP API's routes, a nested stack of their own (infra/api-routes.ts). */
  readonly routes: ApiRoutes;
  /** The sandbox that observes versions, a nested stack of its own (infra/sandbox.ts); absent without its recording Lambda. */
  readonly sandbox?: Sandbox;

  constructor(scope: Construct, id: string, props: SkillpressStackProps = {}) {
    super(scope, id, props);
    // S3 writes server access logs under a bucket policy, not an ACL, so every bucket keeps ACLs off.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const specs = props.lambdas ?? allLambdas;

    // ---- State: the single table (docs/architecture.md, "Data model") ----
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableKeys.partition, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableKeys.sort, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableKeys.ttl,
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: tableKeys.byOwner.name,
      partitionKey: { name: tableKeys.byOwner.partition, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableKeys.byOwner.sort, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    // ---- Access logs: S3 server access logs and CloudFront's standard logs, kept 90 days ----
    this.logBucket = new s3.Bucket(this, 'LogBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(logRetentionDays), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.logBucket.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'The access-log bucket itself: logging its own writes into itself would log forever.',
    });

    // ---- Content: both buckets private; only CloudFront (OAC) and the Lambdas read them ----
    const privateBucket = (bucketId: string, cors?: s3.CorsRule[], lifecycleRules: s3.LifecycleRule[] = []) =>
      new s3.Bucket(this, bucketId, {
        ...(cors ? { cors } : {}),
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        encryption: s3.BucketEncryption.S3_MANAGED,
        enforceSSL: true,
        objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        versioned: true,
        lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(30), abortIncompleteMultipartUploadAfter: Duration.days(1) }, ...lifecycleRules],
        serverAccessLogsBucket: this.logBucket,
        serverAccessLogsPrefix: `s3/${bucketId}/`,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    // What the content bucket keeps for days only (functions/content/expiring-content.ts: shard
    // outputs, prepared deliveries, files sent ahead of a ClawHub publish), and their old versions a day.
    const contentBucket = privateBucket(
      'ContentBucket',
      undefined,
      EXPIRING_CONTENT.map(({ prefix, days }) => ({ prefix, expiration: Duration.days(days), noncurrentVersionExpiration: Duration.days(1) })),
    );
    // Public files are readable from any origin (docs/api.md §11): the bucket answers a preflight
    // that CloudFront forwards (OPTIONS, with the CORS headers) for any of them.
    const staticBucket = privateBucket('StaticBucket', [
      { allowedMethods: [s3.HttpMethods.GET, s3.HttpMethods.HEAD], allowedOrigins: ['*'], allowedHeaders: ['*'], maxAge: 86_400 },
    ]);

    // Filled in by the operator (docs/deploy.md); the stack only creates them, empty of meaning.
    const githubClientSecret = new secrets.Secret(this, 'GitHubClientSecret', {
      secretName: secretNames.githubClientSecret,
      description: 'Client secret of the GitHub OAuth app used for sign-in',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const siteBuildToken = new secrets.Secret(this, 'SiteBuildToken', {
      secretName: secretNames.siteBuildToken,
      description: 'GitHub token allowed to dispatch the site workflow (actions: write on the site repository)',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const stripeSecretKey = new secrets.Secret(this, 'StripeSecretKey', {
      secretName: secretNames.stripeSecretKey,
      description: 'Stripe API secret key (sk_live_… or a restricted key allowed to write Checkout Sessions)',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const stripeWebhookSecret = new secrets.Secret(this, 'StripeWebhookSecret', {
      secretName: secretNames.stripeWebhookSecret,
      description: 'Signing secret (whsec_…) of the Stripe webhook endpoint <site>/api/stripe/webhook',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const githubImportToken = new secrets.Secret(this, 'GitHubImportToken', {
      secretName: secretNames.githubImportToken,
      description: 'GitHub token GitHub imports read repositories and organisation memberships with (contents: read, members: read)',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Rotation happens where these are issued (GitHub, Stripe), and the operator pastes the new
    // value in (docs/deploy.md, "Rotating secrets"); a rotation Lambda could not mint them.
    for (const secret of [githubClientSecret, siteBuildToken, stripeSecretKey, stripeWebhookSecret, githubImportToken]) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: 'Issued by GitHub or Stripe, which alone can rotate it; the operator rotates it there and stores the new value (docs/deploy.md)',
      });
    }

    // Proves to the API that a request came through CloudFront, so the viewer address the edge
    // passes on is trusted (functions/http/client.ts). Generated; it guards install counts only,
    // and rotating it means a redeploy, which sets the origin header and the Lambdas' at once.
    const edgeSecret = new secrets.Secret(this, 'EdgeSecret', {
      description: 'Origin header CloudFront sends to the API: proof that the viewer address it passes on is the connection’s',
      generateSecretString: { excludePunctuation: true, passwordLength: 40 },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(edgeSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'CloudFront sends it as an origin header fixed at deploy time, so a rotation is a redeploy (docs/deploy.md); it only guards install counts',
    });

    // Each GitHub import's webhook secret is derived from it (functions/services/imports.ts).
    // Generated; rotating it changes every import's secret, which their owners then set again.
    const importKey = new secrets.Secret(this, 'ImportKey', {
      secretName: secretNames.importKey,
      description: 'Key the webhook secrets of GitHub imports are derived from (HMAC-SHA256 of each import id)',
      generateSecretString: { excludePunctuation: true, passwordLength: 64 },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(importKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Every import webhook secret is derived from it and set in GitHub by its owner, so a rotation is theirs to follow (docs/deploy.md)',
    });

    // The registry's signing key (docs/api.md §11.11): its private half never leaves KMS. Only the
    // Lambdas that publish versions and the rebuilds may sign with it (infra/lambdas.ts `signing`).
    const signingKey = new kms.Key(this, 'SigningKey', {
      description: 'Skillpress registry signatures: ECDSA P-256 over <slug>@<version>:<integrity> (docs/deploy.md, rotating it)',
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // ---- CloudFront: the one public entry point ----
    const api = new apigw.HttpApi(this, 'Api', { description: 'Skillpress API (behind CloudFront)', createDefaultStage: false });
    new apigw.HttpStage(this, 'ApiStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      // A ceiling on what a flood can cost; raise with the Lambda concurrency (docs/deploy.md).
      throttle: { rateLimit: 1000, burstLimit: 2000 },
      // The route key, never the query string: download tokens travel in it (docs/api.md).
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(
          new logs.LogGroup(this, 'ApiAccessLogs', { retention: logs.RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY }),
        ),
        format: apigateway.AccessLogFormat.custom(JSON.stringify(apiAccessLogFields)),
      },
    });
    // Discovery downloads are served from S3 by CloudFront alone: their real-time log records go
    // to this stream, which the install-log Lambda reads (docs/api.md §10.2). One shard takes
    // 1,000 records a second; a day of retention covers any outage of the reader. Their query is
    // logged (a skill's own index marks what it names): no download token travels to these
    // static paths, which take none, unlike the API's deliveries that standard logs leave out.
    const installLog = new kinesis.Stream(this, 'InstallLogStream', {
      shardCount: 1,
      retentionPeriod: Duration.hours(24),
      encryption: kinesis.StreamEncryption.MANAGED,
    });
    const realtimeLog = new cloudfront.RealtimeLogConfig(this, 'InstallLog', {
      endPoints: [cloudfront.Endpoint.fromKinesisStream(installLog)],
      fields: [...CDN_LOG_FIELDS],
      samplingRate: 100,
    });
    const distribution = this.distribution(api, staticBucket, edgeSecret, realtimeLog);
    const siteOrigin = `https://${distribution.distributionDomainName}`;

    // ---- Code: one Lambda per concern, each with exactly its declared access ----
    const buckets = { content: contentBucket, static: staticBucket };
    this.routes = new ApiRoutes(this, 'Routes', api);
    for (const spec of specs) {
      const fn = this.lambda(spec, props.bundleRoot ?? root, {
        TABLE_NAME: this.table.tableName,
        CONTENT_BUCKET: contentBucket.bucketName,
        STATIC_BUCKET: staticBucket.bucketName,
        SITE_ORIGIN: siteOrigin,
        LOG_LEVEL: 'info',
        ...(props.admins ? { SKILLPRESS_ADMINS: props.admins } : {}),
        ...(spec.countsInstalls ? { EDGE_SECRET: edgeSecret.secretValue.unsafeUnwrap() } : {}),
        ...(spec.github?.includes('sign-in')
          ? { ...(props.githubClientId ? { GITHUB_CLIENT_ID: props.githubClientId } : {}), GITHUB_CLIENT_SECRET_NAME: secretNames.githubClientSecret }
          : {}),
        ...(spec.github?.includes('site-build')
          ? {
              ...(props.siteRepo ? { GITHUB_REPO: props.siteRepo } : {}),
              GITHUB_WORKFLOW: props.siteWorkflow ?? 'site.yml',
              GITHUB_WORKFLOW_REF: props.siteWorkflowRef ?? 'main',
              GITHUB_TOKEN_SECRET_NAME: secretNames.siteBuildToken,
            }
          : {}),
        ...(spec.github?.includes('import')
          ? { GITHUB_IMPORT_TOKEN_SECRET_NAME: secretNames.githubImportToken, SKILLPRESS_IMPORT_KEY_NAME: secretNames.importKey }
          : {}),
        ...(spec.stripe?.includes('api') ? { STRIPE_SECRET_KEY_NAME: secretNames.stripeSecretKey } : {}),
        ...(spec.stripe?.includes('webhook') ? { STRIPE_WEBHOOK_SECRET_NAME: secretNames.stripeWebhookSecret } : {}),
        ...(spec.signing ? { SIGNING_KMS_KEY_ID: signingKey.keyArn } : {}),
      });
      this.grantTable(fn, spec);
      for (const which of ['content', 'static'] as const) {
        const level = spec[which];
        if (level) this.grantBucket(fn, buckets[which], level);
      }
      for (const prefix of spec.contentPuts ?? []) {
        fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [contentBucket.arnForObjects(`${prefix}*`)] }));
        Validations.of(fn.role!).acknowledge({
          id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(contentBucket.node.defaultChild as s3.CfnBucket)}.Arn>/${prefix}*]`,
          reason: 'Objects named at run time (a run and shard, a skill and version) under the one prefix infra/lambdas.ts gives it',
        });
      }
      if (spec.github?.includes('sign-in')) githubClientSecret.grantRead(fn);
      if (spec.github?.includes('site-build')) siteBuildToken.grantRead(fn);
      if (spec.github?.includes('import')) {
        githubImportToken.grantRead(fn);
        importKey.grantRead(fn);
      }
      if (spec.stripe?.includes('api')) stripeSecretKey.grantRead(fn);
      if (spec.stripe?.includes('webhook')) stripeWebhookSecret.grantRead(fn);
      if (spec.signing) {
        const actions = ['kms:Sign', 'kms:GetPublicKey', ...(spec.signing === 'publish-keys' ? ['kms:DescribeKey'] : [])];
        fn.addToRolePolicy(new iam.PolicyStatement({ actions, resources: [signingKey.keyArn] }));
      }

      this.routes.add(spec, fn);
      if (spec.stream) this.consumeStream(fn, spec);
      if (spec.cdnLog) this.consumeInstallLog(fn, spec, installLog);
      for (const schedule of spec.schedules ?? []) {
        new events.Rule(this, schedule.id, {
          schedule: events.Schedule.expression(schedule.expression),
          targets: [new targets.LambdaFunction(fn, { retryAttempts: 2 })],
        });
      }
    }

    this.fullRebuild(specs);
    this.sandbox = this.observer(specs, props.bundleRoot ?? root, contentBucket);

    new CfnOutput(this, 'SiteUrl', { value: siteOrigin });
    new CfnOutput(this, 'DistributionId', { value: distribution.distributionId });
    new CfnOutput(this, 'StaticBucketName', { value: staticBucket.bucketName });
    new CfnOutput(this, 'GitHubCallbackUrl', { value: `${siteOrigin}/api/auth/github/callback` });
  }

  private lambda(spec: LambdaSpec, bundleRoot: string, environment: Record<string, string>): lambda.Function {
    const dir = join(bundleRoot, bundleDir(spec.name));
    if (!existsSync(join(dir, 'index.mjs'))) throw new Error(`${dir}/index.mjs is missing: run npm run build first`);
    const id = pascal(spec.name);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    // Its own role, writing only its own log group (not the managed basic-execution policy's every group).
    const role = new iam.Role(this, `${id}Role`, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
    const fn = new lambda.Function(this, `${id}Function`, {
      description: spec.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromAsset(dir),
      memorySize: spec.memoryMb ?? 512,
      timeout: Duration.seconds(spec.timeoutSeconds ?? 10),
      environment,
      role,
      logGroup,
    });
    this.functions.set(spec.name, fn);
    return fn;
  }

  /** Reads on the table and its index; writes only to the key prefixes the Lambda owns. */
  private grantTable(fn: lambda.Function, spec: LambdaSpec): void {
    const { table } = this;
    if (spec.table.read) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: [...tableActions.read], resources: [table.tableArn, `${table.tableArn}/index/${tableKeys.byOwner.name}`] }),
      );
    }
    if (spec.table.scan) fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...tableActions.scan], resources: [table.tableArn] }));
    if (spec.table.write.length > 0) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [...tableActions.write],
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': spec.table.write.map((prefix) => `${prefix}*`) } },
        }),
      );
    }
  }

  private grantBucket(fn: lambda.Function, bucket: s3.Bucket, level: 'read' | 'write'): void {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...bucketActions[level]], resources: [bucket.arnForObjects('*')] }));
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...bucketActions.list], resources: [bucket.bucketArn] }));
    Validations.of(fn.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
      reason: 'Objects of one bucket, named at run time by content hash or slug; the actions are only those its level in infra/lambdas.ts allows',
    });
  }

  /**
   * The table's stream drives the incremental rebuild (docs/api.md §11): batched, filtered to the
   * items that change static files, split in halves on error to isolate a bad record, retried,
   * and parked in a dead-letter queue (with an alarm) rather than blocking the shard.
   */
  private consumeStream(fn: lambda.Function, spec: LambdaSpec): void {
    const id = pascal(spec.name);
    const dlq = this.deadLetters(id, `${spec.name}: stream records failed every retry; see docs/deploy.md`);
    // The handler rebuilds every skill of a batch on its own and reports the records of the skills
    // that failed (a partial batch response): Lambda checkpoints before the first of them and, with
    // bisect on, retries from there only, so the rest of the batch is not held. A record that fails
    // every retry (five: enough for a passing S3 or DynamoDB error) is dead-lettered and the shard
    // moves on within minutes; the maximum age is the backstop for an invocation that never ends
    // (a timeout), not the usual way out. The daily full rebuild retries the skill whatever happened.
    // The mapping reads this table's stream only: DynamoEventSource would also grant ListStreams on '*'.
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        resources: [this.table.tableStreamArn!],
      }),
    );
    fn.addEventSourceMapping(`${id}Stream`, {
      eventSourceArn: this.table.tableStreamArn!,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(5),
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: 5,
      maxRecordAge: Duration.hours(24),
      onFailure: new SqsDlq(dlq),
      // One filter: the partition's prefix and any of the sort-key prefixes (the values of a key match any of them).
      filters: [
        lambda.FilterCriteria.filter({
          dynamodb: {
            Keys: {
              [tableKeys.partition]: { S: lambda.FilterRule.beginsWith(spec.stream!.partitionPrefix) },
              [tableKeys.sort]: { S: spec.stream!.sortKeyPrefixes.flatMap((p) => lambda.FilterRule.beginsWith(p)) },
            },
          },
        }),
      ],
    });
  }

  /**
   * `/api/registry/*` is rewritten to the registry JSON in the static bucket by a CloudFront
   * Function; the rest of `/api/*` goes to the HTTP API uncached with every viewer header, cookie
   * and query string but Host (API Gateway routes on its own host name), as does ClawHub's
   * discovery documents `/.well-known/clawhub.json` and `clawdhub.json`; everything else is the static bucket with the
   * cache lifetimes of docs/api.md §11.
   */
  /**
   * The install log's records drive the install-log Lambda: batched, split in halves on error,
   * retried (a record counted before a retry is not counted again: its request id is marked),
   * and parked in a dead-letter queue with an alarm rather than blocking the shard.
   */
  /**
   * The daily full rebuild, fanned out (functions/rebuild/fan-out.ts): EventBridge starts a state
   * machine whose distributed map runs the shard Lambda once per shard, at most
   * {@link fullRebuildShards}.concurrency at once, each retried on its own, then the finish
   * Lambda once. A shard that still fails fails the run (the alarm says so); the stream keeps
   * the files current meanwhile, and the next day's run repairs what this one could not.
   */
  private fullRebuild(specs: readonly LambdaSpec[]): void {
    const part = (role: 'shard' | 'finish') => this.functions.get(specs.find((l) => l.fullRebuild === role)?.name ?? '');
    const shardFn = part('shard');
    const finishFn = part('finish');
    if (!shardFn || !finishFn) return;
    const run = sfn.JsonPath.stringAt('$$.Execution.Name');
    const shards = new sfn.DistributedMap(this, 'RebuildShards', {
      comment: 'Every shard of the table, a bounded number at once',
      itemsPath: '$.shardList',
      itemSelector: { run, shard: sfn.JsonPath.numberAt('$$.Map.Item.Value'), shards: sfn.JsonPath.numberAt('$.shards') },
      maxConcurrency: fullRebuildShards.concurrency,
      resultPath: sfn.JsonPath.DISCARD,
      // Named, so the map's policy may redrive this map's runs only (not any map's, with `*`).
      label: REBUILD_SHARDS_LABEL,
    });
    shards.itemProcessor(
      new sfnTasks.LambdaInvoke(this, 'RebuildShard', { lambdaFunction: shardFn, payloadResponseOnly: true }).addRetry({
        maxAttempts: 2,
        interval: Duration.seconds(30),
        backoffRate: 2,
      }),
    );
    const finish = new sfnTasks.LambdaInvoke(this, 'FinishRebuild', {
      lambdaFunction: finishFn,
      payload: sfn.TaskInput.fromObject({ run, shards: sfn.JsonPath.numberAt('$.shards') }),
      payloadResponseOnly: true,
    }).addRetry({ maxAttempts: 2, interval: Duration.seconds(30), backoffRate: 2 });
    const machine = new sfn.StateMachine(this, 'FullRebuild', {
      comment: 'The daily full static rebuild: shards in parallel, then the shared indexes once',
      definitionBody: sfn.DefinitionBody.fromChainable(shards.next(finish)),
      timeout: Duration.hours(3),
      tracingEnabled: true,
      logs: {
        destination: new logs.LogGroup(this, 'FullRebuildMachineLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
        level: sfn.LogLevel.ALL,
      },
    });
    for (const fn of [shardFn, finishFn]) {
      Validations.of(machine.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(fn.node.defaultChild as lambda.CfnFunction)}.Arn>:*]`,
        reason: 'Invoking the function by any of its versions, as Step Functions asks; only these two functions',
      });
    }
    Validations.of(machine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray trace segments and the log delivery setup of Step Functions logging: IAM grants those actions on "*" only',
    });
    // The distributed map runs each shard as a child execution that Step Functions names at run
    // time, so the map's own policy grants on this machine's executions by wildcard (describe and
    // stop any of them, redrive its labelled map runs): IAM cannot name them sooner. Acknowledged
    // as the ARNs the policy holds, resolved as cdk-nag reads them, so the region the stack is
    // synthesized for (a token, or us-east-1) is the one acknowledged.
    const machineName = Arn.split(machine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME).resourceName;
    for (const executions of [`${machineName}:*`, `${machineName}/${REBUILD_SHARDS_LABEL}:*`]) {
      const arn = this.formatArn({ service: 'states', resource: 'execution', resourceName: executions, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
      Validations.of(machine).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${flattenCfnReference(this.resolve(arn))}]`,
        reason: "The distributed map's own child executions, named at run time, of this state machine only",
      });
    }
    new events.Rule(this, 'DailyFullRebuild', {
      schedule: events.Schedule.expression(fullRebuildShards.schedule),
      targets: [
        new targets.SfnStateMachine(machine, {
          input: events.RuleTargetInput.fromObject({
            shards: fullRebuildShards.count,
            shardList: Array.from({ length: fullRebuildShards.count }, (_, i) => i),
          }),
          retryAttempts: 2,
        }),
      ],
    });
    new cloudwatch.Alarm(this, 'FullRebuildFailedAlarm', {
      alarmDescription: 'The daily full rebuild failed: a shard or the finish failed every retry; see docs/deploy.md',
      metric: machine.metricFailed({ period: Duration.hours(1) }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /**
   * The sandbox (infra/sandbox.ts), in a nested stack of its own, its last step the Lambda whose
   * `observer` is `record`. Every Lambda that may write skills' items may have a version it
   * stored observed: it may start the observer state machine, whose ARN it is given.
   */
  private observer(specs: readonly LambdaSpec[], bundleRoot: string, contentBucket: s3.Bucket): Sandbox | undefined {
    const record = this.functions.get(specs.find((l) => l.observer === 'record')?.name ?? '');
    if (!record) return undefined;
    const contextDir = join(bundleRoot, SANDBOX_CONTEXT_DIR);
    if (!existsSync(join(contextDir, 'Dockerfile'))) throw new Error(`${contextDir}/Dockerfile is missing: run npm run build first`);
    const stateMachineName = observerStateMachineName(this.stackName);
    const sandbox = new Sandbox(this, 'Sandbox', { contextDir, stateMachineName, contentBucket, logBucket: this.logBucket, record });
    this.flowLogDelivery();
    // By name: the recording Lambda may start a run again, and the nested stack waits on it.
    const arn = this.formatArn({ service: 'states', resource: 'stateMachine', resourceName: stateMachineName, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    for (const spec of specs.filter((l) => l.table.write.includes(prefix.skill))) {
      const fn = this.functions.get(spec.name)!;
      fn.addEnvironment(OBSERVER_STATE_MACHINE_ENV, arn);
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['states:StartExecution'], resources: [arn] }));
    }
    return sandbox;
  }

  /**
   * Lets the log delivery service write the sandbox VPC's flow logs (infra/sandbox.ts) into the
   * log bucket, as AWS's flow-log documentation asks: written here, in the bucket's one policy,
   * rather than added by EC2 when the flow log is made, where the next deploy would drop it.
   */
  private flowLogDelivery(): void {
    const principals = [new iam.ServicePrincipal('delivery.logs.amazonaws.com')];
    const fromThisAccount = {
      StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
      ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:*` },
    };
    this.logBucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'FlowLogsWrite',
        principals,
        actions: ['s3:PutObject'],
        resources: [this.logBucket.arnForObjects(`${FLOW_LOGS_PREFIX}/AWSLogs/${Aws.ACCOUNT_ID}/*`)],
        conditions: { ...fromThisAccount, StringEquals: { ...fromThisAccount.StringEquals, 's3:x-amz-acl': 'bucket-owner-full-control' } },
      }),
    );
    this.logBucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'FlowLogsAclCheck',
        principals,
        actions: ['s3:GetBucketAcl', 's3:ListBucket'],
        resources: [this.logBucket.bucketArn],
        conditions: fromThisAccount,
      }),
    );
  }

  /** A dead-letter queue for an event source mapping, kept 14 days, with an alarm on its first message. */
  private deadLetters(id: string, alarmDescription: string): sqs.Queue {
    const dlq = new sqs.Queue(this, `${id}DeadLetters`, { retentionPeriod: Duration.days(14), encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true });
    Validations.of(dlq).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'It is a dead-letter queue itself: of an event source mapping, which cdk-nag does not see',
    });
    new cloudwatch.Alarm(this, `${id}DeadLettersAlarm`, {
      alarmDescription,
      metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    return dlq;
  }

  private consumeInstallLog(fn: lambda.Function, spec: LambdaSpec, stream: kinesis.Stream): void {
    const id = pascal(spec.name);
    const dlq = this.deadLetters(id, `${spec.name}: log records failed every retry; their installs are not counted`);
    fn.addEventSource(
      new KinesisEventSource(stream, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 500,
        maxBatchingWindow: Duration.seconds(5),
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(dlq),
      }),
    );
  }

  private distribution(
    api: apigw.HttpApi,
    staticBucket: s3.Bucket,
    edgeSecret: secrets.Secret,
    installLog: cloudfront.IRealtimeLogConfig,
  ): cloudfront.Distribution {
    // LIST as well as READ: a missing registry file must be a 404, not S3's 403.
    const staticOrigin = origins.S3BucketOrigin.withOriginAccessControl(staticBucket, {
      originAccessLevels: [cloudfront.AccessLevel.READ, cloudfront.AccessLevel.LIST],
    });
    const apiOrigin = new origins.HttpOrigin(Fn.parseDomainName(api.apiEndpoint), {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      customHeaders: { [EDGE_SECRET_HEADER]: edgeSecret.secretValue.unsafeUnwrap() },
    });
    // A site page the bucket does not have (a skill or author newer than the last site build, or
    // no page at all) is asked of the site-pages Lambda at the same path under /api/pages: the
    // fallback page for a skill the registry has, the 404 page with status 404 otherwise
    // (core/static-paths.ts pagesInPlaceOf, as the local CDN answers). S3 answers 404 for a
    // missing object (the origin may LIST), 403 should that permission ever go.
    const sitePages = new origins.OriginGroup({
      primaryOrigin: staticOrigin,
      fallbackOrigin: new origins.HttpOrigin(Fn.parseDomainName(api.apiEndpoint), {
        originPath: SITE_PAGES_ORIGIN_PATH,
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      }),
      fallbackStatusCodes: [403, 404],
    });

    const ttlPolicy = (policyId: string, seconds: number, comment: string) =>
      new cloudfront.CachePolicy(this, policyId, {
        comment,
        defaultTtl: Duration.seconds(seconds),
        maxTtl: Duration.seconds(seconds),
        minTtl: Duration.seconds(0),
        enableAcceptEncodingGzip: true,
        enableAcceptEncodingBrotli: true,
        queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
        headerBehavior: cloudfront.CacheHeaderBehavior.none(),
        cookieBehavior: cloudfront.CacheCookieBehavior.none(),
      });
    const viewerFunction = (functionId: string, file: string, comment: string) => [
      {
        function: new cloudfront.Function(this, functionId, {
          code: cloudfront.FunctionCode.fromFile({ filePath: join(root, 'infra/cloudfront', file) }),
          runtime: cloudfront.FunctionRuntime.JS_2_0,
          comment,
        }),
        eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
      },
    ];
    const siteHeaders = this.securityHeaders('SiteHeadersPolicy', SITE_CONTENT_SECURITY_POLICY, 'Pages: the site policy');
    const dataHeaders = this.securityHeaders('DataHeadersPolicy', DATA_CONTENT_SECURITY_POLICY, 'API answers: nothing loads, runs or frames');
    // Registry documents, bundles, the catalog and the discovery index: any site may read them.
    const publicDataHeaders = this.securityHeaders(
      'PublicDataHeadersPolicy',
      DATA_CONTENT_SECURITY_POLICY,
      'Static JSON and archives, readable from any origin',
      true,
    );
    const fromStatic = (cachePolicy: cloudfront.ICachePolicy, responseHeadersPolicy = publicDataHeaders): cloudfront.BehaviorOptions => ({
      origin: staticOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      // OPTIONS too: a browser's preflight for a public file is answered (by the bucket's CORS rule).
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
      cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD_OPTIONS,
      originRequestPolicy: cloudfront.OriginRequestPolicy.CORS_S3_ORIGIN,
      cachePolicy,
      compress: true,
      responseHeadersPolicy,
    });

    const fromApi: cloudfront.BehaviorOptions = {
      origin: apiOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: dataHeaders,
      // The viewer's address, for distinct installs: API Gateway sees only the edge's.
      functionAssociations: viewerFunction('ViewerAddressFunction', 'viewer-address.js', "The viewer's address for the API"),
    };
    const immutable = ttlPolicy('ImmutableCachePolicy', edgeTtl.immutable, 'Immutable version bundles and archives: 1 year');
    const catalog = ttlPolicy('CatalogCachePolicy', edgeTtl.catalog, 'Catalog, its pages and the discovery index: 5 minutes');
    const distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Skillpress',
      webAclId: this.webAcl().attrArn,
      defaultRootObject: 'index.html',
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        ...fromStatic(ttlPolicy('SiteCachePolicy', edgeTtl.site, 'Site pages: 5 minutes'), siteHeaders),
        origin: sitePages,
        functionAssociations: viewerFunction('SiteIndexFunction', 'site-index.js', 'Folder paths to their index.html'),
      },
      additionalBehaviors: {
        // Before /api/*: CloudFront takes the first pattern that matches.
        '/api/registry/*': {
          ...fromStatic(ttlPolicy('RegistryCachePolicy', edgeTtl.registry, 'Registry JSON: 5 minutes at the edge')),
          functionAssociations: viewerFunction('RegistryRewriteFunction', 'registry-rewrite.js', '/api/registry/<slug> to registry/<slug>.json'),
        },
        '/api/*': fromApi,
        // Before /.well-known/*: ClawHub's discovery document names this origin, so the API
        // writes it; the archives and single SKILL.md files of the discovery index never change.
        '/.well-known/clawhub.json': fromApi,
        '/.well-known/clawdhub.json': fromApi,
        // Their downloads are installs: each request goes to the real-time log. A version's
        // archive and lone SKILL.md (<slug>/<version>/SKILL.md) never change; a skill's current
        // SKILL.md (<slug>/SKILL.md, one folder up) changes with each release.
        '/.well-known/agent-skills/*.tar.gz': { ...fromStatic(immutable), realtimeLogConfig: installLog },
        '/.well-known/agent-skills/*/*/SKILL.md': { ...fromStatic(immutable), realtimeLogConfig: installLog },
        '/.well-known/agent-skills/*/SKILL.md': { ...fromStatic(catalog), realtimeLogConfig: installLog },
        // The whole catalog, stored pre-compressed: the copy the viewer accepts (Vary: Accept-Encoding).
        [`/${CATALOG_KEY}`]: {
          ...fromStatic(
            catalog,
            this.securityHeaders('CatalogHeadersPolicy', DATA_CONTENT_SECURITY_POLICY, 'The whole catalog: public, varies by encoding', true, {
              Vary: 'Accept-Encoding',
            }),
          ),
          functionAssociations: viewerFunction('CatalogEncodingFunction', 'catalog-encoding.js', 'The catalog: its stored brotli or gzip copy'),
        },
        '/.well-known/*': fromStatic(catalog),
        // The catalog's pages and their index (docs/api.md §11.5).
        '/catalog/*': fromStatic(catalog),
        // `skillpress install` downloads free versions here, marked: those are installs too (core/cdn-log.ts).
        '/bundles/*': { ...fromStatic(immutable), realtimeLogConfig: installLog },
      },
    });
    // What CDK warns about (a listing at the root path) is answered by defaultRootObject, and
    // the static bucket holds only public artifacts (docs/api.md §11) anyway.
    Annotations.of(this).acknowledgeWarning(
      '@aws-cdk/aws-cloudfront-origins:listBucketSecurityRisk',
      'defaultRootObject is set; the bucket holds only public files',
    );
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'A public marketplace: skills are for readers in every country, so no country is refused',
    });
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'It answers on the default *.cloudfront.net certificate, whose minimum protocol CloudFront fixes; a custom domain brings its own certificate and TLSv1.2_2021 (docs/deploy.md)',
    });
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions-CFR3',
      reason: 'Logged with standard logging v2 (StandardLogs, below), which can leave out the query string that carries download tokens; legacy logging cannot',
    });
    this.standardLogs(distribution);
    return distribution;
  }

  /**
   * CloudFront's standard logs (v2) to the log bucket, every field but the query string, the
   * cookies and field-level encryption's: a paid delivery's download token travels in the query,
   * and a token is never logged (docs/api.md §12).
   */
  private standardLogs(distribution: cloudfront.Distribution): void {
    const prefix = 'cloudfront';
    this.logBucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudFrontStandardLogs',
        principals: [new iam.ServicePrincipal('delivery.logs.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [this.logBucket.arnForObjects(`${prefix}/*`)],
        conditions: {
          StringEquals: { 's3:x-amz-acl': 'bucket-owner-full-control', 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:delivery-source:*` },
        },
      }),
    );
    const source = new logs.CfnDeliverySource(this, 'StandardLogsSource', {
      name: `${Aws.STACK_NAME}-cloudfront`,
      logType: 'ACCESS_LOGS',
      resourceArn: distribution.distributionArn,
    });
    const destination = new logs.CfnDeliveryDestination(this, 'StandardLogsDestination', {
      name: `${Aws.STACK_NAME}-cloudfront-s3`,
      destinationResourceArn: `${this.logBucket.bucketArn}/${prefix}`,
      outputFormat: 'parquet',
    });
    new logs.CfnDelivery(this, 'StandardLogs', {
      deliverySourceName: source.ref,
      deliveryDestinationArn: destination.attrArn,
      recordFields: [...cloudFrontLogFields],
    });
  }

  /**
   * The web ACL in front of CloudFront: a per-address rate limit on `/api/*`, the only paths that
   * run code, above what any client of the contract sends and below what a flood needs. The
   * static paths are the cache's to absorb. A CLOUDFRONT-scope ACL lives in us-east-1, which is
   * why the stack deploys there (infra/app.ts).
   */
  private webAcl(): wafv2.CfnWebACL {
    const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true });
    return new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('skillpress'),
      customResponseBodies: {
        rate_limited: {
          contentType: 'APPLICATION_JSON',
          content: domainErrorAnswer(
            new DomainError(
              'rate_limited',
              `More than ${apiRateLimit.requests} API requests from this address in ${apiRateLimit.windowSeconds} s; retry in a few minutes`,
            ),
          ).body,
        },
      },
      rules: [
        {
          name: 'api-rate-per-address',
          priority: 0,
          // The contract's 429 (docs/api.md §5); WAF prefixes any header it adds, so no Retry-After.
          action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'rate_limited' } } },
          visibilityConfig: visibility('skillpress-api-rate'),
          statement: {
            rateBasedStatement: {
              limit: apiRateLimit.requests,
              evaluationWindowSec: apiRateLimit.windowSeconds,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                byteMatchStatement: {
                  fieldToMatch: { uriPath: {} },
                  positionalConstraint: 'STARTS_WITH',
                  searchString: '/api/',
                  textTransformations: [{ priority: 0, type: 'NONE' }],
                },
              },
            },
          },
        },
      ],
    });
  }

  /** The headers of core/security-headers.ts with this Content-Security-Policy, set over whatever the origin sent. */
  private securityHeaders(
    id: string,
    contentSecurityPolicy: string,
    comment: string,
    anyOrigin = false,
    custom: Record<string, string> = {},
  ): cloudfront.ResponseHeadersPolicy {
    return new cloudfront.ResponseHeadersPolicy(this, id, {
      comment,
      ...(Object.keys(custom).length > 0
        ? { customHeadersBehavior: { customHeaders: Object.entries(custom).map(([header, value]) => ({ header, value, override: true })) } }
        : {}),
      ...(anyOrigin
        ? {
            corsBehavior: {
              accessControlAllowCredentials: false,
              accessControlAllowHeaders: ['*'],
              accessControlAllowMethods: ['GET', 'HEAD', 'OPTIONS'],
              accessControlAllowOrigins: ['*'],
              originOverride: true,
            },
          }
        : {}),
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
  }
}

/** Requests one address may send to `/api/*` in a window before the web ACL refuses it (429). */
export const apiRateLimit = { requests: 3000, windowSeconds: 300 } as const;

/**
 * The daily full rebuild's fan-out: how many shards, how many at once, and when (docs/deploy.md,
 * "Scale", derives the count from the measured rate per shard and the 900 s Lambda limit).
 */
export const fullRebuildShards = { count: 32, concurrency: 16, schedule: 'cron(15 3 * * ? *)' } as const;

/** The full rebuild's distributed map's label: its map runs' child executions are named under it. */
const REBUILD_SHARDS_LABEL = 'Shards';

/** Days the access logs are kept in the log bucket. */
const logRetentionDays = 90;

/** API Gateway's access log line: the route, never the path's query string (download tokens). */
const apiAccessLogFields = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  integrationLatency: '$context.integrationLatency',
  userAgent: '$context.identity.userAgent',
};

/** CloudFront's standard log fields kept: all but cs-uri-query, cs(Cookie) and the fle-* fields. */
export const cloudFrontLogFields = [
  'date',
  'time',
  'x-edge-location',
  'sc-bytes',
  'c-ip',
  'cs-method',
  'cs(Host)',
  'cs-uri-stem',
  'sc-status',
  'cs(Referer)',
  'cs(User-Agent)',
  'x-edge-result-type',
  'x-edge-request-id',
  'x-host-header',
  'cs-protocol',
  'cs-bytes',
  'time-taken',
  'x-forwarded-for',
  'ssl-protocol',
  'ssl-cipher',
  'x-edge-response-result-type',
  'cs-protocol-version',
  'c-port',
  'time-to-first-byte',
  'x-edge-detailed-result-type',
  'sc-content-type',
  'sc-content-len',
  'sc-range-start',
  'sc-range-end',
] as const;
