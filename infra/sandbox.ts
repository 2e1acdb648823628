import { ArnFormat, Aws, CfnParameter, Duration, NestedStack, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as sfnTasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { Construct } from 'constructs';
import { TASK_ERRORS, TASK_WORK_SECONDS } from '../functions/sandbox-task/task.ts';

/**
 * The sandbox on AWS (docs/deploy.md, "The sandbox on AWS"), a nested stack of its own: the
 * observer state machine runs one ECS task on Fargate per version (its own microVM), waits for
 * the task to hand its observation back by the task token, then has the `observation` Lambda
 * record it. The task's subnets have no route out (no internet or NAT gateway, isolated subnets);
 * it reaches only the VPC endpoints it needs, through a security group whose only egress is to
 * them; its role may read its execution's input and the content bucket's blobs, and answer its
 * own task, nothing else. The skill's code itself has no network at all: it runs inside
 * bubblewrap with a network namespace of its own (functions/sandbox/run-pass.ts).
 */
export interface SandboxProps {
  /** The image's build context, `npm run build`'s dist/sandbox (scripts/sandbox-bundle.ts). */
  contextDir: string;
  /**
   * The state machine's name ({@link observerStateMachineName}): named, so the Lambdas that start
   * it know its ARN without waiting on this stack, which waits on one of them.
   */
  stateMachineName: string;
  contentBucket: s3.IBucket;
  /** Where the VPC's flow logs go (the stack's access-log bucket). */
  logBucket: s3.IBucket;
  /** Records a finished run (`functions/handlers/observation.ts`). */
  record: lambda.IFunction;
}

/** The observer state machine's name in the stack named `stackName`. */
export const observerStateMachineName = (stackName: string) => `${stackName}-observer`;

/** The task's size: a pass runs the skill's installs (npm, pip) under strace, which wants a core and memory. */
export const sandboxTask = { cpu: 1024, memoryMiB: 2048 } as const;

/**
 * What the state machine allows ECS to start the task and pull its image (a fresh microVM each
 * time, about 30–90 s measured by others for an image this size; an assumption, see
 * docs/deploy.md), on top of the task's own work ({@link TASK_WORK_SECONDS}).
 */
export const TASK_START_SECONDS = 240;

/** Where the sandbox VPC's flow logs go in the log bucket (the root stack lets the log delivery service write there). */
export const FLOW_LOGS_PREFIX = 'vpc-flow-logs';

/** The content bucket's file contents (functions/content/blobs.ts `blobKey`): all the task may read of it. */
const BLOBS = 'blobs/*';

/** The name of the environment variable the publishing Lambdas find the observer state machine's ARN in. */
export const OBSERVER_STATE_MACHINE_ENV = 'SKILLPRESS_OBSERVER_STATE_MACHINE';

/**
 * S3's AWS-managed prefix list (`com.amazonaws.<region>.s3`) by region: the task's security group
 * lets it reach S3's addresses, which only the gateway endpoint's route leads to. CloudFormation
 * cannot look the id up; `aws ec2 describe-managed-prefix-lists --filters
 * Name=prefix-list-name,Values=com.amazonaws.us-east-1.s3` shows it.
 */
export const S3_PREFIX_LISTS: Record<string, string> = { 'us-east-1': 'pl-63a5400a' };

export class Sandbox extends NestedStack {
  readonly stateMachine: sfn.StateMachine;
  readonly taskDefinition: ecs.FargateTaskDefinition;

  constructor(scope: Construct, id: string, props: SandboxProps) {
    // What this stack takes from the root, as parameters of known names, so the acknowledgements
    // of cdk-nag's findings below can name them.
    super(scope, id, {
      description: 'Skillpress: the sandbox that observes versions (ECS on Fargate, no route out)',
      parameters: {
        ContentBucketName: props.contentBucket.bucketName,
        ContentBucketArn: props.contentBucket.bucketArn,
        RecordFunctionArn: props.record.functionArn,
      },
    });
    // ecs:RunTask on the task definition itself, not on every revision of its family.
    this.node.setContext('@aws-cdk/aws-stepfunctions-tasks:fixRunEcsTaskPolicy', true);
    const contentBucket = s3.Bucket.fromBucketAttributes(this, 'ContentBucket', {
      bucketName: new CfnParameter(this, 'ContentBucketName').valueAsString,
      bucketArn: new CfnParameter(this, 'ContentBucketArn').valueAsString,
    });
    const recordFunction = lambda.Function.fromFunctionAttributes(this, 'RecordFunction', {
      functionArn: new CfnParameter(this, 'RecordFunctionArn').valueAsString,
      sameEnvironment: true,
    });
    const region = Stack.of(scope).region;
    const s3PrefixList = Token.isUnresolved(region) ? undefined : S3_PREFIX_LISTS[region];
    if (!s3PrefixList) throw new Error(`the sandbox needs S3's prefix list for region ${region}: add it to S3_PREFIX_LISTS (infra/sandbox.ts)`);

    // ---- Network: isolated subnets, endpoints only ----
    const vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr('10.64.0.0/20'),
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Sandbox', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      // The default group is used by nothing; CDK would add a custom resource (a Lambda) to empty it.
      restrictDefaultSecurityGroup: false,
      // Every flow, accepted or not: what the task tried to reach is evidence too.
      flowLogs: {
        All: { destination: ec2.FlowLogDestination.toS3(props.logBucket, `${FLOW_LOGS_PREFIX}/`), trafficType: ec2.FlowLogTrafficType.ALL },
      },
    });
    const isolated = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };
    const endpoints = new ec2.SecurityGroup(this, 'EndpointsSecurityGroup', {
      vpc,
      description: 'The interface endpoints: HTTPS from the sandbox task only',
      allowAllOutbound: false,
    });
    const task = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc,
      description: 'The sandbox task: HTTPS to the VPC endpoints only, nothing in',
      allowAllOutbound: false,
    });
    endpoints.addIngressRule(task, ec2.Port.tcp(443), 'The sandbox task');
    task.addEgressRule(endpoints, ec2.Port.tcp(443), 'The interface endpoints (image, logs, Step Functions)');
    // Written into the group itself: CloudFormation takes EC2's default allow-all rule away only
    // from a group that lists egress rules of its own, so this one never has it.
    (task.node.defaultChild as ec2.CfnSecurityGroup).addPropertyOverride('SecurityGroupEgress', [
      {
        IpProtocol: 'tcp',
        FromPort: 443,
        ToPort: 443,
        DestinationPrefixListId: s3PrefixList,
        Description: 'S3 through the gateway endpoint (blobs, image layers)',
      },
    ]);
    // The image (ECR's API and registry), the container's log lines, and Step Functions for the task's input and answer.
    const interfaceServices = {
      EcrApi: ec2.InterfaceVpcEndpointAwsService.ECR,
      EcrDocker: ec2.InterfaceVpcEndpointAwsService.ECR_DOCKER,
      Logs: ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS,
      States: ec2.InterfaceVpcEndpointAwsService.STEP_FUNCTIONS,
    };
    const interfaceEndpoints = Object.fromEntries(
      Object.entries(interfaceServices).map(([name, service]) => [
        name,
        vpc.addInterfaceEndpoint(`${name}Endpoint`, { service, subnets: isolated, securityGroups: [endpoints], open: false, privateDnsEnabled: true }),
      ]),
    );
    // S3 only for the content bucket's blobs and ECR's image layers, whoever asks through it.
    const s3Endpoint = vpc.addGatewayEndpoint('S3Endpoint', { service: ec2.GatewayVpcEndpointAwsService.S3, subnets: [isolated] });
    s3Endpoint.addToPolicy(
      new iam.PolicyStatement({
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:GetObject'],
        resources: [contentBucket.arnForObjects(BLOBS), `arn:${Aws.PARTITION}:s3:::prod-${region}-starport-layer-bucket/*`],
      }),
    );

    // ---- The task: the runner's image, SYS_PTRACE for strace, nothing else added ----
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: sandboxTask.cpu,
      memoryLimitMiB: sandboxTask.memoryMiB,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.ARM64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    const linuxParameters = new ecs.LinuxParameters(this, 'RunnerLinux', { initProcessEnabled: true });
    // strace traces bubblewrap and everything it starts; Fargate adds no other capability.
    linuxParameters.addCapabilities(ecs.Capability.SYS_PTRACE);
    const taskLogs = new logs.LogGroup(this, 'TaskLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const runner = this.taskDefinition.addContainer('Runner', {
      // Staged at synthesis (the folder is copied into the cloud assembly), built by `cdk deploy`.
      image: ecs.ContainerImage.fromAsset(props.contextDir, { platform: Platform.LINUX_ARM64 }),
      essential: true,
      linuxParameters,
      logging: ecs.LogDrivers.awsLogs({ logGroup: taskLogs, streamPrefix: 'observe' }),
      environment: { CONTENT_BUCKET: contentBucket.bucketName, AWS_REGION: region },
    });
    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason: 'The content bucket and the region: names, not secrets; the task token and execution come per run from the state machine',
    });
    const taskRole = this.taskDefinition.taskRole;
    taskRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [contentBucket.arnForObjects(BLOBS)] }));
    this.acknowledgeWildcard(taskRole, contentBucket.arnForObjects(BLOBS), 'The blobs of the content bucket, named by content hash at run time; read only');
    // Pulling the image: ECR's authorization token is granted on "*" only.
    this.acknowledgeWildcard(this.taskDefinition.obtainExecutionRole(), '*', 'ECR\'s GetAuthorizationToken, which IAM grants on "*" only, to pull this image');

    // ---- The state machine: run the task, wait for its token, record the observation ----
    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const observe = new sfnTasks.EcsRunTask(this, 'Observe', {
      comment: 'One task per version: it reads its input, runs the version in the sandbox and hands the observation back by the token',
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      cluster,
      taskDefinition: this.taskDefinition,
      launchTarget: new sfnTasks.EcsFargateLaunchTarget({ platformVersion: ecs.FargatePlatformVersion.LATEST }),
      subnets: isolated,
      securityGroups: [task],
      assignPublicIp: false,
      containerOverrides: [
        {
          containerDefinition: runner,
          environment: [
            { name: 'SKILLPRESS_TASK_TOKEN', value: sfn.JsonPath.taskToken },
            { name: 'SKILLPRESS_EXECUTION', value: sfn.JsonPath.stringAt('$$.Execution.Id') },
          ],
        },
      ],
      taskTimeout: sfn.Timeout.duration(Duration.seconds(TASK_WORK_SECONDS + TASK_START_SECONDS)),
      resultPath: '$.observation',
    });
    // A start ECS refused (capacity), a task that never answered, a run that failed: twice more.
    // An input that is not an observer input is not retried.
    observe.addRetry({
      errors: ['ECS.AmazonECSException', sfn.Errors.TIMEOUT, TASK_ERRORS.failed, TASK_ERRORS.timedOut],
      maxAttempts: 2,
      interval: Duration.seconds(10),
      backoffRate: 2,
    });
    const notObserved = new sfn.Fail(this, 'NotObserved', {
      error: 'Sandbox.NotObserved',
      cause: 'The version could not be observed; it stays pending (docs/deploy.md, "The sandbox on AWS")',
    });
    observe.addCatch(notObserved, { resultPath: '$.failure' });
    const record = new sfnTasks.LambdaInvoke(this, 'Record', {
      comment: 'Records the observation of the version named by the execution’s input (not by the task)',
      lambdaFunction: recordFunction,
      payload: sfn.TaskInput.fromObject({
        slug: sfn.JsonPath.stringAt('$.slug'),
        version: sfn.JsonPath.stringAt('$.version'),
        observation: sfn.JsonPath.objectAt('$.observation'),
      }),
      payloadResponseOnly: true,
    }).addRetry({ maxAttempts: 3, interval: Duration.seconds(5), backoffRate: 2 });
    this.stateMachine = new sfn.StateMachine(this, 'Observer', {
      stateMachineName: props.stateMachineName,
      comment: 'Observes a version: runs it in the sandbox on Fargate, then records what it did',
      definitionBody: sfn.DefinitionBody.fromChainable(observe.next(record)),
      // Three attempts at the task, their pauses, and the record.
      timeout: Duration.minutes(30),
      tracingEnabled: true,
      logs: {
        destination: new logs.LogGroup(this, 'ObserverLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
        level: sfn.LogLevel.ALL,
        // Inputs and observations stay in the execution history, out of the logs.
        includeExecutionData: false,
      },
    });
    // The task's role: its execution's input, and its own task's answer (the token names the task).
    const executions = this.formatArn({
      service: 'states',
      resource: 'execution',
      resourceName: `${props.stateMachineName}:*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    taskRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['states:DescribeExecution'], resources: [executions] }));
    this.acknowledgeWildcard(taskRole, executions, "This state machine's executions, named at run time: the task reads its own's input");
    this.stateMachine.grantTaskResponse(taskRole);
    // The Step Functions endpoint answers only this machine's task calls, whoever asks through it.
    interfaceEndpoints.States!.addToPolicy(
      new iam.PolicyStatement({
        principals: [new iam.AnyPrincipal()],
        actions: ['states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat', 'states:DescribeExecution'],
        resources: [this.stateMachine.stateMachineArn, executions],
      }),
    );
    this.acknowledgeWildcard(
      this.stateMachine,
      `${recordFunction.functionArn}:*`,
      'Invoking the recording function by any of its versions, as Step Functions asks; only that function',
    );
    this.acknowledgeWildcard(
      this.stateMachine,
      '*',
      'X-Ray trace segments, the log delivery setup of Step Functions logging and ECS task events: IAM grants those on "*" only',
    );
    new cloudwatch.Alarm(this, 'NotObservedAlarm', {
      alarmDescription: 'A version could not be observed after every retry: it stays pending; see docs/deploy.md, "The sandbox on AWS"',
      metric: this.stateMachine.metricFailed({ period: Duration.hours(1) }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** Acknowledges cdk-nag's wildcard finding on `arn` (resolved as cdk-nag reads it) for `construct`'s policies. */
  private acknowledgeWildcard(construct: Construct, arn: string, reason: string): void {
    const resource = arn === '*' ? '*' : flattenCfnReference(this.resolve(arn));
    Validations.of(construct).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
  }
}
