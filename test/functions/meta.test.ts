import { beforeAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack();
});

describe('meta endpoints', () => {
  it('serves an OpenAPI 3.1 document generated from the schemas, covering every endpoint', async () => {
    const res = await stack.request('/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const path of [
      '/api/publish',
      '/api/skills/{id}/versions',
      '/api/deliver/{skillId}',
      '/api/analytics/{skillId}',
      '/api/api-keys',
      '/api/registry/{slug}',
      '/.well-known/skills.json',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    const publish = doc.paths['/api/publish']!.post as {
      requestBody: { content: Record<string, { schema: { additionalProperties?: boolean; required?: string[] } }> };
    };
    const schema = publish.requestBody.content['application/json']!.schema;
    expect(schema.additionalProperties).toBe(false);
    // A category is optional: the files' metadata.category, else general (docs/api.md §7.4).
    expect(schema.required).toEqual(['name', 'description']);
  });

  it('answers health checks with status ok while every rebuild succeeds', async () => {
    const res = await stack.request('/api/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers an unknown route or method with a 404 JSON error', async () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['PUT', '/api/publish'],
      ['GET', '/api/publish'],
    ]) {
      const res = await stack.request(path!, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });
});
