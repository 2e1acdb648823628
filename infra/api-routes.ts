import { NestedStack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { LambdaSpec } from './lambdas.ts';
import { pascal } from './names.ts';

/**
 * The HTTP API's routes, each to its Lambda, in a nested stack of their own: about 130 of them
 * (every `GET` route twice, for `HEAD`), a template of their own keeps the root's well under
 * CloudFormation's 500 resources, with room for what comes (docs/deploy.md, "Templates"). The
 * API, its stage and the Lambdas stay in the root; CloudFormation passes their ids in.
 */
export class ApiRoutes extends NestedStack {
  constructor(
    scope: Construct,
    id: string,
    private readonly api: apigw.HttpApi,
  ) {
    super(scope, id, { description: 'Skillpress: the HTTP API routes, each to its Lambda' });
  }

  /** Routes each of `spec`'s routes to `fn`, and with `spec.catchAll` every other `/api/*` path. */
  add(spec: LambdaSpec, fn: lambda.IFunction): void {
    // One permission per function for this API, not one per route: every route of the API is one
    // of these, each bound to its own function's integration.
    const integration = new HttpLambdaIntegration(`${pascal(spec.name)}Integration`, fn, { scopePermissionToRoute: false });
    for (const route of spec.routes ?? []) {
      const [method, path] = route.split(' ') as [apigw.HttpMethod, string];
      // An HTTP API matches the method exactly: a HEAD of a GET route would otherwise fall to the
      // catch-all's 404, where the app (and the local runtime) answers it as the GET without a body.
      for (const as of method === apigw.HttpMethod.GET ? [method, apigw.HttpMethod.HEAD] : [method]) {
        const key = `${as} ${path}`;
        appAuthorised(
          new apigw.HttpRoute(this, `Route ${key.replace(/[/{}]/g, '-')}`, { httpApi: this.api, routeKey: apigw.HttpRouteKey.with(path, as), integration }),
        );
      }
    }
    // Unknown /api/* paths get the service's JSON 404 instead of API Gateway's own body.
    if (spec.catchAll) appAuthorised(new apigw.HttpRoute(this, 'Route $default', { httpApi: this.api, routeKey: apigw.HttpRouteKey.DEFAULT, integration }));
  }
}

/** A route the app authorises itself: API keys, sessions and download tokens (functions/http/auth.ts). */
function appAuthorised(route: apigw.HttpRoute): void {
  Validations.of(route).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      'The app authorises each request itself (API keys, sessions, download tokens: functions/http/auth.ts), and public routes are public by the contract (docs/api.md)',
  });
}
