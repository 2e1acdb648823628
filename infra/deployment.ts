import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SkillpressStack } from './stack.ts';

/**
 * The deployment `npm run synth` and `npm run deploy` make (infra/app.ts), and the one the stack
 * tests synthesize: the stack with its region and its settings from the app's CDK context, e.g.
 * `-c githubClientId=Iv1.abc -c siteRepo=acme/skillpress -c siteWorkflow=site.yml`; none is
 * needed to synthesize, and synthesis makes no AWS call. AWS's own checks (cdk-nag's
 * AwsSolutions pack) run on it: a finding without an acknowledged reason fails the synthesis,
 * and each acknowledgement is written into the template beside the resource it concerns.
 */
export function skillpressDeployment(app: App): SkillpressStack {
  const context = (key: string) => (app.node.tryGetContext(key) as string | undefined) || undefined;
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }));
  return new SkillpressStack(app, context('stackName') ?? 'Skillpress', {
    description: 'Skillpress: a marketplace for agent skills',
    // CloudFront's web ACL and its log delivery exist only in us-east-1, so the stack lives there.
    env: { region: deploymentRegion },
    githubClientId: context('githubClientId'),
    siteRepo: context('siteRepo'),
    siteWorkflow: context('siteWorkflow'),
    siteWorkflowRef: context('siteWorkflowRef'),
    admins: context('admins'),
  });
}

/** Where the stack deploys (docs/deploy.md, "First deploy"). */
export const deploymentRegion = 'us-east-1';
