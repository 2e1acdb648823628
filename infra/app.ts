import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SkillpressStack } from './stack.ts';

/**
 * The CDK app (`npm run synth`, `npm run deploy`). Settings come from CDK context, e.g.
 * `-c githubClientId=Iv1.abc -c siteRepo=acme/skillpress -c siteWorkflow=site.yml`; none is
 * needed to synthesize. The stack is environment-agnostic, so synthesis makes no AWS call.
 */
const app = new App();
const context = (key: string) => (app.node.tryGetContext(key) as string | undefined) || undefined;

// AWS's own checks run on every synth and deploy: a finding without an acknowledged reason fails it.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

new SkillpressStack(app, context('stackName') ?? 'Skillpress', {
  description: 'Skillpress: a marketplace for agent skills',
  // CloudFront's web ACL and its log delivery exist only in us-east-1, so the stack lives there.
  env: { region: 'us-east-1' },
  githubClientId: context('githubClientId'),
  siteRepo: context('siteRepo'),
  siteWorkflow: context('siteWorkflow'),
  siteWorkflowRef: context('siteWorkflowRef'),
  admins: context('admins'),
});
