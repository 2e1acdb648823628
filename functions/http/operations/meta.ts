import { healthSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Health and this document (docs/api.md §7.1). */
export const metaOperations = operations(
  { name: 'Meta', description: 'Health, and this document.' },
  {
    health: {
      method: 'get',
      path: '/api/health',
      summary: 'Health: ok, or degraded while some skills fail to rebuild',
      description:
        'Always 200 while the service answers. `status` is `degraded` while the rebuild keeps failing for some skills: the API serves, ' +
        'every other skill is rebuilt and indexed, and those skills are retried with backoff, but their static files (registry JSON, ' +
        'bundles, catalog and discovery entries) stay as they were until a retry succeeds. A 503 would take a serving instance out of ' +
        'a load balancer for a fault that no restart repairs. Under `npm start` the local rebuild reports its failures here; on AWS the ' +
        "rebuild Lambda's failed stream records go to its dead-letter queue and alarm instead, and this answers ok.",
      auth: 'none',
      success: { status: 200, description: 'OK or degraded', schema: healthSchema },
    },
    openApiDocument: {
      method: 'get',
      path: '/api/openapi.json',
      summary: 'This OpenAPI 3.1 document (Cache-Control: public, max-age=300)',
      auth: 'none',
      success: { status: 200, description: 'The document' },
    },
  },
);
