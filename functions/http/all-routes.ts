import { accessRoutes } from './routes/access.ts';
import { appealRoutes } from './routes/appeals.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { clawhubRoutes } from './routes/clawhub.ts';
import { clawhubPublishRoutes } from './routes/clawhub-publish.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { signInRoutes } from './routes/sign-in.ts';
import { deliverRoutes } from './routes/deliver.ts';
import { gitHubSignInRoutes } from './routes/github-sign-in.ts';
import { importRoutes } from './routes/imports.ts';
import { lifecycleRoutes } from './routes/lifecycle.ts';
import { metaRoutes } from './routes/meta.ts';
import { moderationRoutes } from './routes/moderation.ts';
import { mySkillsRoutes } from './routes/my-skills.ts';
import { organisationRoutes } from './routes/organisations.ts';
import { publishRoutes, versionRoutes } from './routes/publish.ts';
import { purchaseRoutes } from './routes/purchases.ts';
import { searchRoutes } from './routes/search.ts';
import { sitePageRoutes } from './routes/site-pages.ts';
import { registryReadRoutes } from './routes/registry-reads.ts';
import { stripeWebhookRoutes } from './routes/stripe-webhook.ts';
import { oidcExchangeRoutes, trustedPublisherRoutes } from './routes/trusted-publishing.ts';
import type { RouteGroup } from './env.ts';

/** Every route group, for the single-process runtime (`npm start`) and the HTTP tests. */
export const allRoutes: RouteGroup[] = [
  metaRoutes,
  signInRoutes,
  gitHubSignInRoutes,
  mySkillsRoutes,
  apiKeyRoutes,
  publishRoutes,
  versionRoutes,
  lifecycleRoutes,
  deliverRoutes,
  registryReadRoutes,
  accessRoutes,
  purchaseRoutes,
  stripeWebhookRoutes,
  analyticsRoutes,
  moderationRoutes,
  appealRoutes,
  searchRoutes,
  sitePageRoutes,
  clawhubRoutes,
  clawhubPublishRoutes,
  organisationRoutes,
  trustedPublisherRoutes,
  oidcExchangeRoutes,
  importRoutes,
];
