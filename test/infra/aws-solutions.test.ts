import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, NestedStack, Stack, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentRegion, skillpressDeployment } from '../../infra/deployment.ts';
import { apiRateLimit, cloudFrontLogFields } from '../../infra/stack.ts';

/**
 * AWS's own linter, cdk-nag's AwsSolutions pack, run on the deployment `npm run synth` makes
 * (infra/deployment.ts, with its region and checks): synthesis fails on any finding without an
 * acknowledged reason. The rest of the file checks the parts that make the findings go away
 * rather than be acknowledged: access logs everywhere, the web ACL's rate rule on `/api/*`, no
 * wildcard resources in any role.
 */
type Resource = { Type: string; Properties: Record<string, any>; Metadata?: any };
let outdir: string;
let resources: Record<string, Resource>;
/** The resources of every template, the root's and each nested stack's. */
let everyTemplate: Record<string, Resource>[];
let region: string;

/** Synthesizes `app` (whose validation plugins are already added), returning `stack`'s template and cdk-nag's report. */
function synthesize(app: App, stack: Stack): { template: { Resources: Record<string, Resource> }; report: any } {
  let failure: unknown;
  try {
    app.synth();
  } catch (error) {
    failure = error;
  }
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
  if (failure && !/ValidationFailed|Validation failed/.test(String(failure))) throw failure;
  const template = failure ? { Resources: {} } : JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.template.json`), 'utf8'));
  return { template, report };
}

const violations = (report: any): string[] =>
  report.pluginReports.flatMap((p: any) => p.violations.map((v: any) => `${v.ruleName}: ${v.violatingConstructs.map((c: any) => c.constructPath)}`));

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'skillpress-nag-'));
  const app = new App({ outdir, context: { githubClientId: 'Iv1.test', siteRepo: 'acme/site' } });
  const stack = skillpressDeployment(app);
  region = stack.region;
  const { template, report } = synthesize(app, stack);
  expect(violations(report), 'unacknowledged AwsSolutions findings').toEqual([]);
  resources = template.Resources;
  const nestedFiles = readdirSync(outdir).filter((file) => file.endsWith('.nested.template.json'));
  expect(nestedFiles.length).toBeGreaterThan(0);
  everyTemplate = [resources, ...nestedFiles.map((file) => JSON.parse(readFileSync(join(outdir, file), 'utf8')).Resources)];
}, 600_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("cdk-nag's AwsSolutions pack", () => {
  it('is live: a bare bucket fails it', () => {
    const app = new App({ outdir });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const stack = new Stack(app, 'Bare');
    new s3.Bucket(stack, 'Bucket');
    const rules = synthesize(app, stack).report.pluginReports.flatMap((p: any) => p.violations.map((v: any) => v.ruleName));
    expect(rules).toEqual(expect.arrayContaining(['AwsSolutions-S1', 'AwsSolutions-S10']));
  });

  it('checks nested stacks too: a bare bucket in one fails it', () => {
    const app = new App({ outdir });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const stack = new Stack(app, 'Outer');
    new s3.Bucket(new NestedStack(stack, 'Inner'), 'Bucket');
    const found = violations(synthesize(app, stack).report);
    expect(found).toEqual(expect.arrayContaining(['AwsSolutions-S1: Outer/Inner/Bucket/Resource']));
  });

  it('checks the stack in the region it deploys to', () => {
    expect(region).toBe(deploymentRegion);
  });

  it('passes the stack, every acknowledgement with its reason, and only for the findings we accept', () => {
    const acknowledged = new Map<string, string[]>();
    for (const [id, resource] of everyTemplate.flatMap((r) => Object.entries(r))) {
      for (const rule of resource.Metadata?.cdk_nag?.rules_to_suppress ?? []) {
        expect(rule.reason, `${id} ${rule.id}`).toMatch(/\w{4,}.{30,}/);
        const rid = String(rule.id).replace(/\[.*$/, '');
        acknowledged.set(rid, [...(acknowledged.get(rid) ?? []), resource.Type]);
      }
    }
    // Each is explained where it is made (infra/stack.ts, infra/api-routes.ts): the app's own authorisation on API
    // routes, the default CloudFront certificate, no country refused, legacy CloudFront logging
    // replaced by v2, objects named at run time, third-party secrets rotated at their issuer,
    // a dead-letter queue without one of its own, the log bucket not logging itself; the sandbox's
    // task given two names in its environment (infra/sandbox.ts). And two the CDK makes itself in
    // the sandbox's stack: the zones its VPC takes from the stack's (W3010), and the flow log's
    // destination options, which it writes in camelCase (F3002, F3003).
    expect([...acknowledged.keys()].sort()).toEqual([
      'AwsSolutions-APIG4',
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR3',
      'AwsSolutions-CFR4',
      'AwsSolutions-ECS2',
      'AwsSolutions-IAM5',
      'AwsSolutions-S1',
      'AwsSolutions-SMG4',
      'AwsSolutions-SQS3',
      'CloudFormation-Validate::F3002',
      'CloudFormation-Validate::F3003',
      'CloudFormation-Validate::W3010',
    ]);
    // On each Lambda's role (and so its default policy): the objects of the buckets it may use; on
    // the full rebuild's state machine (and its role): its functions' versions, its own child
    // executions, and the X-Ray and log-delivery actions IAM grants on "*" only.
    expect(new Set(acknowledged.get('AwsSolutions-IAM5'))).toEqual(new Set(['AWS::IAM::Role', 'AWS::IAM::Policy', 'AWS::StepFunctions::StateMachine']));
    expect(acknowledged.get('AwsSolutions-S1')).toEqual(['AWS::S3::Bucket']);
  });
});

describe('access logs', () => {
  it('log the API stage to its own log group, without the query string', () => {
    const [, stage] = ofType('AWS::ApiGatewayV2::Stage')[0]!;
    const { DestinationArn, Format } = stage.Properties.AccessLogSettings;
    expect(resources[DestinationArn['Fn::GetAtt'][0]]!.Type).toBe('AWS::Logs::LogGroup');
    expect(Object.keys(JSON.parse(Format))).toEqual(expect.arrayContaining(['requestId', 'ip', 'routeKey', 'status']));
    expect(Format).not.toMatch(/path|query/i);
  });

  it('log both buckets to the log bucket, which expires them', () => {
    const buckets = ofType('AWS::S3::Bucket');
    const logged = buckets.filter(([, b]) => b.Properties.LoggingConfiguration);
    expect(logged).toHaveLength(buckets.length - 1);
    const [logBucketId] = buckets.find(([, b]) => !b.Properties.LoggingConfiguration)!;
    for (const [, bucket] of logged) expect(bucket.Properties.LoggingConfiguration.DestinationBucketName).toEqual({ Ref: logBucketId });
    const logBucket = resources[logBucketId]!.Properties;
    expect(logBucket.LifecycleConfiguration.Rules).toEqual(expect.arrayContaining([expect.objectContaining({ ExpirationInDays: 90, Status: 'Enabled' })]));
    expect(logBucket.PublicAccessBlockConfiguration).toMatchObject({ BlockPublicAcls: true, RestrictPublicBuckets: true });
  });

  it("deliver CloudFront's standard logs to the log bucket, without the query string that carries download tokens, or cookies", () => {
    const [, source] = ofType('AWS::Logs::DeliverySource')[0]!;
    expect(source.Properties.LogType).toBe('ACCESS_LOGS');
    expect(JSON.stringify(source.Properties.ResourceArn)).toContain('Distribution');
    const [, delivery] = ofType('AWS::Logs::Delivery')[0]!;
    expect(delivery.Properties.RecordFields).toEqual([...cloudFrontLogFields]);
    expect(delivery.Properties.RecordFields).not.toContain('cs-uri-query');
    expect(delivery.Properties.RecordFields).not.toContain('cs(Cookie)');
    const [, destination] = ofType('AWS::Logs::DeliveryDestination')[0]!;
    const [logBucketId] = ofType('AWS::S3::Bucket').find(([, b]) => !b.Properties.LoggingConfiguration)!;
    expect(JSON.stringify(destination.Properties.DestinationResourceArn)).toContain(logBucketId);
  });
});

describe('the web ACL', () => {
  it('is on the distribution and limits each address on /api/* only, answering the contract’s 429', () => {
    const [aclId, acl] = ofType('AWS::WAFv2::WebACL')[0]!;
    expect(acl.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    const [, dist] = ofType('AWS::CloudFront::Distribution')[0]!;
    expect(dist.Properties.DistributionConfig.WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const [rule] = acl.Properties.Rules;
    expect(rule.Statement.RateBasedStatement).toMatchObject({
      Limit: apiRateLimit.requests,
      EvaluationWindowSec: apiRateLimit.windowSeconds,
      AggregateKeyType: 'IP',
      ScopeDownStatement: { ByteMatchStatement: { FieldToMatch: { UriPath: {} }, PositionalConstraint: 'STARTS_WITH', SearchString: '/api/' } },
    });
    expect(rule.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 429, CustomResponseBodyKey: 'rate_limited' });
    const body = JSON.parse(acl.Properties.CustomResponseBodies.rate_limited.Content);
    expect(body.error.code).toBe('rate_limited');
  });
});

describe('least privilege', () => {
  it('names a resource in every statement of every Lambda role: no "*", no managed policies', () => {
    const lambdaRoles = new Set(ofType('AWS::Lambda::Function').map(([, fn]) => fn.Properties.Role['Fn::GetAtt'][0]));
    for (const [id, policy] of ofType('AWS::IAM::Policy')) {
      // The full rebuild's state machine sends X-Ray traces and sets up its log delivery: actions IAM grants on "*" only.
      if (!policy.Properties.Roles.some((r: { Ref: string }) => lambdaRoles.has(r.Ref))) continue;
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        for (const resource of [statement.Resource].flat()) expect(resource, id).not.toBe('*');
      }
    }
    for (const [id, role] of ofType('AWS::IAM::Role')) expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
  });

  it("lets the full rebuild's distributed map reach its own state machine's executions only, and redrive only its own map's runs", () => {
    const [machineId] = ofType('AWS::StepFunctions::StateMachine')[0]!;
    const [, policy] = ofType('AWS::IAM::Policy').find(([id]) => id.includes('DistributedMapPolicy'))!;
    const statements = policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[];
    for (const statement of statements) expect(JSON.stringify(statement.Resource)).toContain(`{"Ref":"${machineId}"}`);
    const redrive = statements.find((s) => [s.Action].flat().includes('states:RedriveExecution'))!;
    expect(JSON.stringify(redrive.Resource)).toMatch(/"\/Shards:\*"\]/);
  });

  it('lets each Lambda write its own log group only', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const role = fn.Properties.Role['Fn::GetAtt'][0];
      const group = fn.Properties.LoggingConfig.LogGroup.Ref;
      const statements = ofType('AWS::IAM::Policy')
        .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
      const logging = statements.filter((s) => [s.Action].flat().some((a: string) => a.startsWith('logs:')));
      expect(logging, id).toEqual([{ Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Effect: 'Allow', Resource: { 'Fn::GetAtt': [group, 'Arn'] } }]);
    }
  });
});
