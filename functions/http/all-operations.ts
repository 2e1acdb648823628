import type { Operation, StaticFile } from './operation.ts';
import { accessOperations } from './operations/access.ts';
import { analyticsOperations } from './operations/analytics.ts';
import { appealOperations } from './operations/appeals.ts';
import { apiKeyOperations } from './operations/api-keys.ts';
import { clawhubOperations, clawhubUnsupportedOperations } from './operations/clawhub.ts';
import { clawhubPublishOperations, clawhubUploadOperations } from './operations/clawhub-publish.ts';
import { deliveryOperations } from './operations/deliver.ts';
import { gitHubSignInOperations } from './operations/github-sign-in.ts';
import { importOperations } from './operations/imports.ts';
import { lifecycleOperations } from './operations/lifecycle.ts';
import { metaOperations } from './operations/meta.ts';
import { moderationOperations } from './operations/moderation.ts';
import { mySkillsOperations } from './operations/my-skills.ts';
import { organisationOperations } from './operations/organisations.ts';
import { publishingOperations } from './operations/publish.ts';
import { purchaseOperations } from './operations/purchases.ts';
import { searchOperations } from './operations/search.ts';
import { registryReadOperations } from './operations/registry-reads.ts';
import { signInOperations } from './operations/sign-in.ts';
import { sitePageOperations } from './operations/site-pages.ts';
import { staticFileOperations } from './operations/static-files.ts';
import { stripeWebhookOperations } from './operations/stripe-webhook.ts';
import { trustedPublishingOperations } from './operations/trusted-publishing.ts';

/**
 * Every API operation, served by the route groups of all-routes.ts, in the document's order.
 * Declarations only: importing this pulls in no handler, service or store.
 */
export const apiOperations: readonly Operation[] = [
  metaOperations,
  signInOperations,
  gitHubSignInOperations,
  mySkillsOperations,
  apiKeyOperations,
  organisationOperations,
  publishingOperations,
  trustedPublishingOperations,
  importOperations,
  lifecycleOperations,
  deliveryOperations,
  registryReadOperations,
  accessOperations,
  purchaseOperations,
  stripeWebhookOperations,
  analyticsOperations,
  moderationOperations,
  appealOperations,
  searchOperations,
  sitePageOperations,
  clawhubOperations,
  clawhubPublishOperations,
  clawhubUploadOperations,
  clawhubUnsupportedOperations,
].flatMap((group) => Object.values<Operation>(group));

/** The static files clients read, served by the CDN rather than the app. */
export const staticOperations: readonly StaticFile[] = Object.values(staticFileOperations);
