import { App } from 'aws-cdk-lib';
import { skillpressDeployment } from './deployment.ts';

/** The CDK app (`npm run synth`, `npm run deploy`): the deployment of infra/deployment.ts. */
skillpressDeployment(new App());
