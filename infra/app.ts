import { App } from 'aws-cdk-lib';
import { SkillpressStack } from './stack.ts';

/**
 * The CDK app (`npm run synth`, `npm run deploy`). Settings come from CDK context, e.g.
 * `-c githubClientId=Iv1.abc -c siteRepo=acme/skillpress -c siteWorkflow=site.yml`; none is
 * needed to synthesize. The stack is environment-agnostic, so synthesis makes no AWS call.
 */
const app = new App();
const context = (key: string) => (app.node.tryGetContext(key) as string | undefined) || undefined;

new SkillpressStack(app, context('stackName') ?? 'Skillpress', {
  description: 'Skillpress: a marketplace for agent skills',
  githubClientId: context('githubClientId'),
  siteRepo: context('siteRepo'),
  siteWorkflow: context('siteWorkflow'),
  siteWorkflowRef: context('siteWorkflowRef'),
  admins: context('admins'),
});
