import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#functions/platform/log';
import { deliver, issueToken, publish } from '../support/delivery.ts';
import { type FakeStripe, fakeStripeEnv, startFakeStripe } from '../support/fake-stripe.ts';
import { buy, openCheckout, sendWebhook } from '../support/purchase.ts';
import { Client, createTestStack, json, ORIGIN, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * Buying paid skills (docs/api.md §9.4, §9.5) through the real `stripe` SDK, talking to a fake
 * Stripe on loopback, with webhooks signed by the SDK's own test-header helper.
 */
const SECRET_CONTENT = 'Paid instructions: the purchased secret is 4242';
const PRICE = { amount: 1299, currency: 'EUR' };

const logLines: string[] = [];
let stripe: FakeStripe;
let stack: TestStack;
let alice: Client;
let aliceKey: string;
let bob: Client;
let bobKey: string;

beforeAll(async () => {
  stripe = await startFakeStripe();
  stack = await createTestStack(
    { log: createLogger('debug', (line) => logLines.push(line)) },
    { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000', ...fakeStripeEnv(stripe) },
  );
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  bob = await Client.signIn(stack, 'bob');
  bobKey = await bob.createKey();
});
afterAll(() => stripe.close());

let paidSkills = 0;
/** A paid skill whose SKILL.md holds {@link SECRET_CONTENT}. */
const paidSkill = (price: unknown = PRICE) => {
  const slug = `paid-skill-${++paidSkills}`;
  return publish(stack, aliceKey, { slug, paid: true, ...(price ? { price } : {}), files: [skillFile(slug, SECRET_CONTENT)] });
};

/** Every purchase item of the table for one Checkout Session. */
async function purchaseItems(sessionId: string): Promise<Record<string, unknown>[]> {
  const { Items } = await stack.deps.db.doc.send(new ScanCommand({ TableName: stack.deps.db.table }));
  return (Items ?? []).filter((item) => String(item.pk).startsWith('PURCHASE#') && item.sessionId === sessionId);
}

async function mintAs(key: string, skillId: string): Promise<Response> {
  return withKey(stack, key, `/api/skills/${skillId}/download-tokens`, { body: { expiresInSeconds: 600, maxUses: 5 } });
}

describe('prices', () => {
  it('publishes a paid skill with a price, stored with its currency in upper case', async () => {
    const res = await withKey(stack, aliceKey, '/api/publish', {
      body: { name: 'Priced Skill', description: 'd', category: 'testing', paid: true, price: { amount: 500, currency: 'jpy' } },
    });
    expect(res.status).toBe(201);
    expect((await json(res)).price).toEqual({ amount: 500, currency: 'JPY' });
  });

  it('refuses a price on a free skill, a currency that is not ISO 4217, and amounts that are not positive integers', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ paid: false, price: PRICE }, 'price'],
      [{ paid: true, price: { amount: 100, currency: 'EURO' } }, 'price.currency'],
      [{ paid: true, price: { amount: 100, currency: 'ABC' } }, 'price.currency'],
      [{ paid: true, price: { amount: 0, currency: 'EUR' } }, 'price.amount'],
      [{ paid: true, price: { amount: 9.99, currency: 'EUR' } }, 'price.amount'],
      [{ paid: true, price: { amount: 100_000_000, currency: 'EUR' } }, 'price.amount'],
      [{ paid: true, price: { amount: 100, currency: 'EUR', tax: 1 } }, 'price'],
      // Prices Stripe cannot charge: under its minimum (one yen, one euro cent), a last fils.
      [{ paid: true, price: { amount: 1, currency: 'JPY' } }, 'price.amount'],
      [{ paid: true, price: { amount: 1, currency: 'EUR' } }, 'price.amount'],
      [{ paid: true, price: { amount: 1505, currency: 'KWD' } }, 'price.amount'],
    ];
    for (const [fields, path] of cases) {
      const res = await withKey(stack, aliceKey, '/api/publish', { body: { name: `Bad Price ${path}`, description: 'd', category: 'testing', ...fields } });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      const { error } = await json(res);
      expect(error.code).toBe('invalid_request');
      expect(error.details.issues.map((i: { path: string[] }) => i.path.join('.'))).toContain(path);
    }
  });

  it('lets the author set, change and remove the price with PATCH, and shows it in the registry document and the catalog', async () => {
    const skill = await paidSkill(null);
    const set = await withKey(stack, aliceKey, `/api/skills/${skill.id}`, { method: 'PATCH', body: { price: { amount: 999, currency: 'usd' } } });
    expect(set.status).toBe(200);
    expect(await json(set)).toMatchObject({ id: skill.id, paid: true, price: { amount: 999, currency: 'USD' } });
    await stack.idle();
    const registry = await json(await stack.request(`/api/registry/${skill.slug}`));
    expect(registry.price).toEqual({ amount: 999, currency: 'USD' });
    const catalog = await json(await stack.request('/.well-known/skills.json'));
    expect(catalog.skills.find((s: { slug: string }) => s.slug === skill.slug).price).toEqual({ amount: 999, currency: 'USD' });

    const session = await alice.session(`/api/skills/${skill.id}`, { method: 'PATCH', body: { price: null } });
    expect(session.status).toBe(200);
    expect((await json(session)).price).toBeUndefined();
    await stack.idle();
    expect((await json(await stack.request(`/api/registry/${skill.slug}`))).price).toBeUndefined();
  });

  it('answers 403 to another user, 404 for no such skill, and 400 for a price on a free skill', async () => {
    const skill = await paidSkill();
    expect((await withKey(stack, bobKey, `/api/skills/${skill.id}`, { method: 'PATCH', body: { price: PRICE } })).status).toBe(403);
    expect((await withKey(stack, aliceKey, '/api/skills/nope', { method: 'PATCH', body: { price: PRICE } })).status).toBe(404);
    const free = await publish(stack, aliceKey);
    const res = await withKey(stack, aliceKey, `/api/skills/${free.id}`, { method: 'PATCH', body: { price: PRICE } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/free/);
    expect((await withKey(stack, aliceKey, `/api/skills/${free.id}`, { method: 'PATCH', body: { price: null } })).status).toBe(200);
  });
});

describe('checkout', () => {
  it('opens a Checkout Session for the buyer at the price, with the skill and buyer as metadata and the site as return', async () => {
    const skill = await paidSkill();
    const session = await openCheckout(stripe, bob, skill.id);
    expect(session).toMatchObject({
      mode: 'payment',
      amount_total: 1299,
      currency: 'eur',
      client_reference_id: 'dev:bob',
      metadata: { skillId: skill.id, userId: 'dev:bob', login: 'bob', slug: skill.slug },
      payment_status: 'unpaid',
    });
    expect(session.url).toMatch(new RegExp(`^${stripe.baseUrl}/c/pay/cs_test_`));
    expect(session.success_url).toBe(`${ORIGIN}/purchase/?skill=${skill.slug}&session_id={CHECKOUT_SESSION_ID}`);
    expect(session.cancel_url).toBe(`${ORIGIN}/purchase/?skill=${skill.slug}&cancelled=1`);
  });

  it("sends Stripe the amount in Stripe's units where they are not ISO 4217's, and records the purchase in ours", async () => {
    const skill = await paidSkill();
    expect((await withKey(stack, aliceKey, `/api/skills/${skill.id}`, { method: 'PATCH', body: { price: { amount: 500, currency: 'ISK' } } })).status).toBe(
      200,
    );
    const session = await openCheckout(stripe, bob, skill.id);
    expect(session).toMatchObject({ amount_total: 50_000, currency: 'isk' });
    expect((await sendWebhook(stack, stripe, stripe.pay(session.id))).status).toBe(200);
    expect(await purchaseItems(session.id)).toEqual([expect.objectContaining({ status: 'purchased', amount: 500, currency: 'ISK' })]);
  });

  it('refuses a price Stripe cannot charge when it is set, not at checkout', async () => {
    const skill = await paidSkill();
    for (const price of [
      { amount: 1, currency: 'JPY' },
      { amount: 49, currency: 'USD' },
      { amount: 2005, currency: 'BHD' },
      { amount: 150, currency: 'MGA' },
    ]) {
      const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}`, { method: 'PATCH', body: { price } });
      expect(res.status, JSON.stringify(price)).toBe(400);
      expect((await json(res)).error.details.issues[0].path).toEqual(['price', 'amount']);
    }
  });

  it('needs a browser session: 401 without one and with an API key', async () => {
    const skill = await paidSkill();
    expect((await stack.request(`/api/skills/${skill.id}/checkout`, { method: 'POST' })).status).toBe(401);
    expect((await withKey(stack, bobKey, `/api/skills/${skill.id}/checkout`)).status).toBe(401);
  });

  it('refuses what cannot be bought: 404 unknown, 409 not_for_sale for a free or unpriced skill, 409 already_entitled for the author', async () => {
    const free = await publish(stack, aliceKey);
    const unpriced = await paidSkill(null);
    const priced = await paidSkill();
    const answers = [];
    for (const [who, id] of [
      [bob, 'no-such-skill'],
      [bob, free.id],
      [bob, unpriced.id],
      [alice, priced.id],
    ] as const) {
      const res = await who.session(`/api/skills/${id}/checkout`, { method: 'POST' });
      answers.push([res.status, (await json(res)).error.code]);
    }
    expect(answers).toEqual([
      [404, 'not_found'],
      [409, 'not_for_sale'],
      [409, 'not_for_sale'],
      [409, 'already_entitled'],
    ]);
  });

  it('answers 503 payments_unavailable when Stripe fails, and logs no key', async () => {
    const skill = await paidSkill();
    stripe.failNext(500, 3);
    const res = await bob.session(`/api/skills/${skill.id}/checkout`, { method: 'POST' });
    expect(res.status).toBe(503);
    expect((await json(res)).error).toMatchObject({ code: 'payments_unavailable', message: expect.stringMatching(/try again/) });
    expect(logLines.some((line) => line.includes('Stripe did not open a checkout'))).toBe(true);
    expect(logLines.filter((line) => line.includes(stripe.secretKey))).toEqual([]);
  });
});

describe('the webhook', () => {
  it('grants the buyer on a paid checkout: their session and their own download tokens deliver the skill', async () => {
    const skill = await paidSkill();
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(402);
    expect((await mintAs(bobKey, skill.id)).status).toBe(402);
    const { session, returnedTo } = await buy(stack, stripe, bob, skill.id);
    expect(returnedTo).toBe(`${ORIGIN}/purchase/?skill=${skill.slug}&session_id=${session.id}`);

    const viaSession = await deliver(stack, skill.id, {}, bob);
    expect(viaSession.status).toBe(200);
    expect((await json(viaSession)).files[0].content).toContain(SECRET_CONTENT);
    const minted = await mintAs(bobKey, skill.id);
    expect(minted.status).toBe(201);
    const { token } = await json(minted);
    expect((await deliver(stack, skill.id, { token, source: 'cli' })).status).toBe(200);
    // The author sees the buyer's token among the skill's tokens, and can revoke it.
    const { tokens } = await json(await alice.session(`/api/skills/${skill.id}/download-tokens`));
    expect(tokens).toHaveLength(1);
  });

  it("bounds a buyer's or grantee's own tokens: an hour and 10 uses at most, 10 minutes and one use unless asked, where the author's are not", async () => {
    const skill = await paidSkill();
    await buy(stack, stripe, bob, skill.id);
    const mint = (key: string, body: Record<string, unknown>) => withKey(stack, key, `/api/skills/${skill.id}/download-tokens`, { body });
    const before = Date.now();
    const plain = await json(await mint(bobKey, {}));
    expect(plain.maxUses).toBe(1);
    expect(Date.parse(plain.expiresAt) - before).toBeLessThanOrEqual(600_000 + 5_000);
    expect(Date.parse(plain.expiresAt) - before).toBeGreaterThan(590_000);
    expect((await mint(bobKey, { expiresInSeconds: 3600, maxUses: 10 })).status).toBe(201);
    for (const body of [{ expiresInSeconds: 2_592_000 }, { expiresInSeconds: 3601 }, { maxUses: 11 }, { maxUses: 1_000_000, expiresInSeconds: 600 }]) {
      const res = await mint(bobKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).error.code).toBe('invalid_request');
    }
    // The one-use default holds: a second delivery with it is refused.
    expect((await deliver(stack, skill.id, { token: plain.token })).status).toBe(200);
    expect((await deliver(stack, skill.id, { token: plain.token })).status).toBe(401);
    // The author's tokens keep their day and unlimited uses by default, and 30 days on request.
    const authors = await json(await mint(aliceKey, {}));
    expect(authors.maxUses).toBeNull();
    expect((await mint(aliceKey, { expiresInSeconds: 2_592_000 })).status).toBe(201);
  });

  it('grants exactly once when the same event is delivered 10 times at once, and again later', async () => {
    const skill = await paidSkill();
    const session = await openCheckout(stripe, bob, skill.id);
    const event = stripe.pay(session.id);
    const answers = await Promise.all(Array.from({ length: 10 }, () => sendWebhook(stack, stripe, event)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const outcomes = await Promise.all(answers.map(async (r) => (await json(r)).outcome));
    expect(outcomes.filter((o) => o === 'granted')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(9);
    expect(await json(await sendWebhook(stack, stripe, event))).toEqual({ received: true, outcome: 'duplicate' });
    expect(await purchaseItems(session.id)).toEqual([expect.objectContaining({ status: 'purchased', eventId: event.id, amount: 1299, currency: 'EUR' })]);
    const sales = await json(await alice.session(`/api/skills/${skill.id}/sales`));
    expect(sales).toMatchObject({ count: 1, refunds: 0, gross: [{ amount: 1299, currency: 'EUR' }] });
  });

  it('changes nothing for a bad, foreign, stale or missing signature (400)', async () => {
    const skill = await paidSkill();
    const session = await openCheckout(stripe, bob, skill.id);
    const event = stripe.pay(session.id);
    const forged = await sendWebhook(stack, stripe, event, 'whsec_not_the_secret');
    expect(forged.status).toBe(400);
    expect((await json(forged)).error.code).toBe('invalid_request');

    const { payload, signature } = stripe.sign(event);
    const tampered = payload.replace('"paid"', '"paid" ');
    const stale = stripe.sign(event);
    const headers = (sig?: string) => ({ 'content-type': 'application/json', ...(sig ? { 'stripe-signature': sig } : {}) });
    const statuses = [
      (await stack.request('/api/stripe/webhook', { method: 'POST', headers: headers(signature), body: tampered })).status,
      (await stack.request('/api/stripe/webhook', { method: 'POST', headers: headers(), body: payload })).status,
      (await stack.request('/api/stripe/webhook', { method: 'POST', headers: headers('t=1,v1=00'), body: payload })).status,
    ];
    stack.setNow(new Date(Date.now() + 10 * 60_000));
    try {
      statuses.push((await stack.request('/api/stripe/webhook', { method: 'POST', headers: headers(stale.signature), body: stale.payload })).status);
    } finally {
      stack.setNow(new Date());
    }
    expect(statuses).toEqual([400, 400, 400, 400]);
    expect(await purchaseItems(session.id)).toEqual([]);
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(402);
  });

  it('takes the webhook body as Stripe sends it: no session, Origin or JSON content-type rule applies', async () => {
    const skill = await paidSkill();
    const session = await openCheckout(stripe, bob, skill.id);
    const { payload, signature } = stripe.sign(stripe.pay(session.id));
    const res = await stack.request('/api/stripe/webhook', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'stripe-signature': signature },
      body: payload,
    });
    expect(res.status).toBe(200);
    expect((await json(res)).outcome).toBe('granted');
  });

  it('revokes on a full refund: the next delivery, by session or by the buyer token, answers 402, and so does minting', async () => {
    const skill = await paidSkill();
    const { session } = await buy(stack, stripe, bob, skill.id);
    const { token } = await json(await mintAs(bobKey, skill.id));
    const refunded = await sendWebhook(stack, stripe, stripe.refund(session.id));
    expect(await json(refunded)).toEqual({ received: true, outcome: 'revoked' });

    const bySession = await deliver(stack, skill.id, {}, bob);
    expect(bySession.status).toBe(402);
    const byToken = await deliver(stack, skill.id, { token, source: 'cli' });
    expect(byToken.status).toBe(402);
    expect((await json(byToken)).error).toMatchObject({ code: 'payment_required', message: expect.stringMatching(/withdrawn/) });
    expect((await mintAs(bobKey, skill.id)).status).toBe(402);
    // Stripe retrying the old completed event does not grant again.
    expect((await json(await sendWebhook(stack, stripe, stripe.pay(session.id)))).outcome).toBe('duplicate');
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(402);
    expect(await purchaseItems(session.id)).toEqual([expect.objectContaining({ status: 'refunded', refundedAt: expect.any(String) })]);
    // Refunded, the buyer may buy again.
    expect((await bob.session(`/api/skills/${skill.id}/checkout`, { method: 'POST' })).status).toBe(201);
  });

  it('records a purchase whose refund arrived first as refunded', async () => {
    const skill = await paidSkill();
    const session = await openCheckout(stripe, bob, skill.id);
    const completed = stripe.pay(session.id);
    expect((await json(await sendWebhook(stack, stripe, stripe.refund(session.id)))).outcome).toBe('ignored');
    expect((await json(await sendWebhook(stack, stripe, completed))).outcome).toBe('granted');
    expect(await purchaseItems(session.id)).toEqual([expect.objectContaining({ status: 'refunded' })]);
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(402);
  });

  it('pauses access while the charge is disputed, and gives it back when the dispute is won', async () => {
    const skill = await paidSkill();
    const { session } = await buy(stack, stripe, bob, skill.id);
    const { token } = await json(await mintAs(bobKey, skill.id));
    expect(await json(await sendWebhook(stack, stripe, stripe.dispute(session.id, 'needs_response')))).toEqual({ received: true, outcome: 'suspended' });
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(402);
    expect((await deliver(stack, skill.id, { token, source: 'cli' })).status).toBe(402);
    expect((await mintAs(bobKey, skill.id)).status).toBe(402);
    expect(await purchaseItems(session.id)).toEqual([expect.objectContaining({ status: 'disputed' })]);
    const sales = await json(await alice.session(`/api/skills/${skill.id}/sales`));
    expect(sales).toMatchObject({ count: 1, refunds: 0, net: [{ amount: 0, currency: 'EUR' }], sales: [expect.objectContaining({ status: 'disputed' })] });
    // Stripe retrying the completed event does not grant it back.
    expect((await json(await sendWebhook(stack, stripe, stripe.pay(session.id)))).outcome).toBe('duplicate');
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(402);

    expect((await json(await sendWebhook(stack, stripe, stripe.dispute(session.id, 'won')))).outcome).toBe('restored');
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(200);
    expect((await deliver(stack, skill.id, { token, source: 'cli' })).status).toBe(200);
    // A late delivery of the opening event does not pause it again.
    expect((await json(await sendWebhook(stack, stripe, stripe.dispute(session.id, 'needs_response')))).outcome).toBe('restored');
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(200);
  });

  it('ends access when the dispute is lost, and a refund stays a refund whatever the dispute says', async () => {
    const lost = await paidSkill();
    const { session } = await buy(stack, stripe, bob, lost.id);
    await sendWebhook(stack, stripe, stripe.dispute(session.id, 'needs_response'));
    expect((await json(await sendWebhook(stack, stripe, stripe.dispute(session.id, 'lost')))).outcome).toBe('revoked');
    expect((await deliver(stack, lost.id, {}, bob)).status).toBe(402);
    expect(await purchaseItems(session.id)).toEqual([expect.objectContaining({ status: 'disputed' })]);

    const refunded = await paidSkill();
    const bought = await buy(stack, stripe, bob, refunded.id);
    await sendWebhook(stack, stripe, stripe.refund(bought.session.id));
    expect((await json(await sendWebhook(stack, stripe, stripe.dispute(bought.session.id, 'won')))).outcome).toBe('ignored');
    expect(await purchaseItems(bought.session.id)).toEqual([expect.objectContaining({ status: 'refunded' })]);
    expect((await deliver(stack, refunded.id, {}, bob)).status).toBe(402);
  });

  it('records a purchase whose dispute arrived first as disputed', async () => {
    const skill = await paidSkill();
    const session = await openCheckout(stripe, bob, skill.id);
    const completed = stripe.pay(session.id);
    expect((await json(await sendWebhook(stack, stripe, stripe.dispute(session.id, 'needs_response')))).outcome).toBe('ignored');
    expect((await json(await sendWebhook(stack, stripe, completed))).outcome).toBe('granted');
    expect(await purchaseItems(session.id)).toEqual([expect.objectContaining({ status: 'disputed' })]);
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(402);
  });

  it('ignores partial refunds, unpaid sessions, sessions that are not ours and other event types', async () => {
    const skill = await paidSkill();
    const { session } = await buy(stack, stripe, bob, skill.id);
    const partial = stripe.refund(session.id);
    Object.assign(partial.data.object, { refunded: false, amount_refunded: 100 });
    const unpaid = stripe.pay(session.id);
    Object.assign(unpaid.data.object, { id: 'cs_test_unpaid', payment_status: 'unpaid' });
    const foreign = stripe.pay(session.id);
    Object.assign(foreign.data.object, { id: 'cs_test_foreign', metadata: {} });
    const other = { ...stripe.pay(session.id), type: 'customer.created' };
    for (const event of [partial, unpaid, foreign, other]) expect((await json(await sendWebhook(stack, stripe, event))).outcome).toBe('ignored');
    expect((await deliver(stack, skill.id, {}, bob)).status).toBe(200);
  });
});

describe('purchases and sales', () => {
  it("lists the buyer's purchases and the author's sales with counts, gross, net and refunds", async () => {
    const skill = await paidSkill();
    const carol = await Client.signIn(stack, 'carol');
    const first = await buy(stack, stripe, bob, skill.id);
    await buy(stack, stripe, carol, skill.id);
    await sendWebhook(stack, stripe, stripe.refund(first.session.id));

    const { purchases } = await json(await bob.session('/api/me/purchases'));
    expect(purchases.find((p: { skillId: string }) => p.skillId === skill.id)).toEqual({
      skillId: skill.id,
      slug: skill.slug,
      amount: 1299,
      currency: 'EUR',
      status: 'refunded',
      sessionId: first.session.id,
      purchasedAt: expect.any(String),
      refundedAt: expect.any(String),
    });
    const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/sales`, { method: 'GET' });
    expect(res.status).toBe(200);
    const sales = await json(res);
    expect(sales).toMatchObject({
      skillId: skill.id,
      count: 2,
      refunds: 1,
      gross: [{ amount: 2598, currency: 'EUR' }],
      net: [{ amount: 1299, currency: 'EUR' }],
    });
    expect(sales.sales.map((s: { login: string; status: string }) => [s.login, s.status]).sort()).toEqual([
      ['bob', 'refunded'],
      ['carol', 'purchased'],
    ]);
    expect((await bob.session(`/api/skills/${skill.id}/sales`)).status).toBe(403);
    expect((await stack.request('/api/me/purchases')).status).toBe(401);
  });

  it('puts no paid content, no download token and no Stripe secret in any static file', async () => {
    const skill = await paidSkill();
    await buy(stack, stripe, bob, skill.id);
    const { token } = await json(await mintAs(bobKey, skill.id));
    expect((await deliver(stack, skill.id, { token })).status).toBe(200);
    const own = await issueToken(alice, skill.id);
    await stack.idle();
    const listing = await stack.deps.s3.send(new ListObjectsV2Command({ Bucket: stack.config.staticBucket }));
    expect(listing.Contents?.length).toBeGreaterThan(2);
    for (const object of listing.Contents ?? []) {
      const body = await stack.deps.s3.send(new GetObjectCommand({ Bucket: stack.config.staticBucket, Key: object.Key! }));
      const text = Buffer.from(await body.Body!.transformToByteArray()).toString('latin1');
      for (const needle of [SECRET_CONTENT, token, own.token, stripe.secretKey, stripe.webhookSecret])
        expect(text.includes(needle), `${object.Key}`).toBe(false);
    }
    expect(logLines.filter((line) => [token, own.token, stripe.secretKey, stripe.webhookSecret, 'purchased secret'].some((s) => line.includes(s)))).toEqual([]);
  });
});

describe('without Stripe configured', () => {
  it('answers checkout and the webhook with 503, while the author still grants access and issues tokens', async () => {
    const plain = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const author = await Client.signIn(plain, 'alice');
    const key = await author.createKey();
    const buyer = await Client.signIn(plain, 'bob');
    const res = await withKey(plain, key, '/api/publish', { body: { name: 'Offline Sale', description: 'd', category: 'testing', paid: true, price: PRICE } });
    const skill = await json(res);
    const checkout = await buyer.session(`/api/skills/${skill.id}/checkout`, { method: 'POST' });
    expect(checkout.status).toBe(503);
    expect((await json(checkout)).error).toMatchObject({ code: 'payments_unavailable', message: expect.stringMatching(/not configured.*STRIPE_SECRET_KEY/) });
    const hook = await plain.request('/api/stripe/webhook', { method: 'POST', headers: { 'stripe-signature': 't=1,v1=00' }, body: '{}' });
    expect(hook.status).toBe(503);
    expect((await json(hook)).error.code).toBe('payments_unavailable');

    expect((await author.session(`/api/skills/${skill.id}/grants`, { method: 'POST', body: { login: 'bob' } })).status).toBe(201);
    expect((await deliver(plain, skill.id, {}, buyer)).status).toBe(200);
    expect((await issueToken(author, skill.id)).token).toMatch(/^dt_/);
    // A granted user mints their own token, bound to the grant: revoking the grant ends it.
    const minted = await withKey(plain, await buyer.createKey(), `/api/skills/${skill.id}/download-tokens`, { body: { maxUses: 2 } });
    expect(minted.status).toBe(201);
    const { token } = await json(minted);
    expect((await deliver(plain, skill.id, { token })).status).toBe(200);
    expect((await author.session(`/api/skills/${skill.id}/grants/bob`, { method: 'DELETE' })).status).toBe(204);
    expect((await deliver(plain, skill.id, { token })).status).toBe(402);
  });
});
