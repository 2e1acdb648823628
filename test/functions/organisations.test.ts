import { beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestStack, json, ORIGIN, skillBody, type TestStack, withKey } from '../support/stack.ts';

/**
 * Organisations: creation in the login namespace users share, invitations only their invitee
 * accepts, roles that owners alone change (never below one owner), and the audit log.
 */

let stack: TestStack;
let owner: Client;
let bob: Client;
let eve: Client;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_ADMINS: 'root', SKILLPRESS_ORG_LIMIT: '1000' });
  [owner, bob, eve] = (await Promise.all(['olive', 'bob', 'eve'].map((login) => Client.signIn(stack, login)))) as [Client, Client, Client];
});

const post = (client: Client, path: string, body?: unknown) => client.session(path, { method: 'POST', ...(body === undefined ? {} : { body }) });

async function newOrg(login: string, by = owner): Promise<void> {
  const res = await post(by, '/api/orgs', { login, name: `${login} Inc.` });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function join(org: string, client: Client, login: string, role: 'owner' | 'maintainer' | 'member', by = owner): Promise<void> {
  expect((await post(by, `/api/orgs/${org}/invitations`, { login, role })).status).toBe(201);
  expect((await post(client, `/api/orgs/${org}/invitations/${login}/accept`)).status).toBe(200);
}

describe('creating an organisation', () => {
  it('makes its creator its owner, and shows it to anyone', async () => {
    const res = await post(owner, '/api/orgs', { login: 'Acme', name: 'Acme Corp' });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({ login: 'Acme', name: 'Acme Corp', createdAt: expect.any(String), role: 'owner', skills: [] });
    const page = await stack.request('/api/orgs/acme');
    expect(page.status).toBe(200);
    expect(await json(page)).toEqual({ login: 'Acme', name: 'Acme Corp', createdAt: expect.any(String), skills: [] });
    expect(await json(await owner.session('/api/me/orgs'))).toEqual({ orgs: [{ login: 'Acme', name: 'Acme Corp', role: 'owner' }] });
    expect((await stack.request('/api/orgs/nobody-here')).status).toBe(404);
  });

  it('shares the login namespace with users, ignoring case, both ways', async () => {
    const taken = await post(eve, '/api/orgs', { login: 'BOB', name: 'Not Bob' });
    expect(taken.status).toBe(409);
    expect((await json(taken)).error.code).toBe('login_taken');
    expect((await post(eve, '/api/orgs', { login: 'ACME', name: 'Copy' })).status).toBe(409);
    // Nobody signs in as an organisation, with any case.
    const signIn = await stack.request('/api/auth/dev-login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      body: '{"login":"acme"}',
    });
    expect(signIn.status).toBe(409);
    expect((await json(signIn)).error).toMatchObject({ code: 'login_taken', message: expect.stringContaining('organisation') });
    expect(signIn.headers.get('set-cookie')).toBeNull();
  });

  it('is rate limited per account: of 8 sent at once past a limit of 3, 5 are 429, and a refused one spends nothing', async () => {
    const limited = await createTestStack({}, { SKILLPRESS_ORG_LIMIT: '3' });
    const [squatter, other] = await Promise.all([Client.signIn(limited, 'squatter'), Client.signIn(limited, 'other')]);
    expect((await post(squatter, '/api/orgs', { login: 'other', name: 'taken' })).status).toBe(409);
    const sent = await Promise.all(Array.from({ length: 8 }, (_, i) => post(squatter, '/api/orgs', { login: `squat-${i}`, name: 'Official' })));
    const statuses = sent.map((res) => res.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429, 429]);
    const refused = sent.find((res) => res.status === 429)!;
    expect((await json(refused)).error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await json(await squatter.session('/api/me/orgs'))).orgs).toHaveLength(3);
    // Another account has its own window.
    expect((await post(other, '/api/orgs', { login: 'others-org', name: 'x' })).status).toBe(201);
  });

  it('takes only a session, with the Origin rule', async () => {
    const key = await owner.createKey();
    const byKey = await stack.request('/api/orgs', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'keyed', name: 'Keyed' }),
    });
    expect(byKey.status).toBe(401);
    const noOrigin = await owner.session('/api/orgs', { method: 'POST', body: { login: 'noorigin', name: 'x' }, headers: { origin: 'https://evil.example' } });
    expect(noOrigin.status).toBe(403);
    expect((await post(owner, '/api/orgs', { login: '-bad', name: 'x' })).status).toBe(400);
  });
});

describe('invitations', () => {
  it('are accepted by their invitee only, and make them a member with the role given', async () => {
    await newOrg('inv-co');
    const res = await post(owner, '/api/orgs/inv-co/invitations', { login: 'bob', role: 'maintainer' });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      org: 'inv-co',
      login: 'bob',
      role: 'maintainer',
      invitedBy: 'olive',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    const { invitations } = await json(await bob.session('/api/me/invitations'));
    expect(invitations.map((i: { org: string; role: string }) => [i.org, i.role])).toContainEqual(['inv-co', 'maintainer']);
    // Eve cannot take Bob's invitation, by his login or hers: there is none for her.
    for (const path of ['/api/orgs/inv-co/invitations/bob/accept', '/api/orgs/inv-co/invitations/eve/accept']) {
      const stolen = await post(eve, path);
      expect(stolen.status).toBe(404);
      expect((await json(stolen)).error.code).toBe('not_found');
    }
    expect((await eve.session('/api/orgs/inv-co/members')).status).toBe(403);
    const accepted = await post(bob, '/api/orgs/inv-co/invitations/BOB/accept');
    expect(accepted.status).toBe(200);
    expect(await json(accepted)).toEqual({ login: 'bob', role: 'maintainer', since: expect.any(String) });
    const { members } = await json(await bob.session('/api/orgs/inv-co/members'));
    expect(members).toEqual([
      { login: 'bob', role: 'maintainer', since: expect.any(String) },
      { login: 'olive', role: 'owner', since: expect.any(String) },
    ]);
    // Accepted once: the invitation is gone.
    expect((await post(bob, '/api/orgs/inv-co/invitations/bob/accept')).status).toBe(404);
    const again = await post(owner, '/api/orgs/inv-co/invitations', { login: 'bob', role: 'owner' });
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('already_member');
  });

  it('are made by owners only, for users who have signed in', async () => {
    await newOrg('inv-only');
    await join('inv-only', bob, 'bob', 'maintainer');
    const byMaintainer = await post(bob, '/api/orgs/inv-only/invitations', { login: 'eve', role: 'owner' });
    expect(byMaintainer.status).toBe(403);
    expect((await post(eve, '/api/orgs/inv-only/invitations', { login: 'eve', role: 'owner' })).status).toBe(403);
    expect((await post(owner, '/api/orgs/inv-only/invitations', { login: 'never-signed-in', role: 'member' })).status).toBe(404);
    expect((await post(owner, '/api/orgs/inv-only/invitations', { login: 'eve', role: 'admin' })).status).toBe(400);
  });

  it('expire after 7 days', async () => {
    await newOrg('inv-expiry');
    expect((await post(owner, '/api/orgs/inv-expiry/invitations', { login: 'eve', role: 'member' })).status).toBe(201);
    stack.setNow(new Date(Date.now() + 7 * 86_400_000 + 60_000));
    try {
      expect((await post(eve, '/api/orgs/inv-expiry/invitations/eve/accept')).status).toBe(404);
      const { invitations } = await json(await eve.session('/api/me/invitations'));
      expect(invitations.map((i: { org: string }) => i.org)).not.toContain('inv-expiry');
    } finally {
      stack.setNow(undefined);
    }
  });

  it('hold only while their inviter may still invite: a removed or demoted owner’s invitations cannot be accepted', async () => {
    for (const [org, change] of [
      ['inv-removed', { method: 'DELETE' }],
      ['inv-demoted', { method: 'PUT', body: { role: 'maintainer' } }],
    ] as const) {
      await newOrg(org);
      await join(org, bob, 'bob', 'owner');
      // Bob invites his sock puppet as an owner, then loses the right to invite.
      expect((await post(bob, `/api/orgs/${org}/invitations`, { login: 'eve', role: 'owner' })).status).toBe(201);
      expect((await owner.session(`/api/orgs/${org}/members/bob`, change)).status).toBe(change.method === 'DELETE' ? 204 : 200);
      const accepted = await post(eve, `/api/orgs/${org}/invitations/eve/accept`);
      expect([accepted.status, (await json(accepted)).error.code]).toEqual([404, 'not_found']);
      expect((await json(await eve.session('/api/me/invitations'))).invitations.map((i: { org: string }) => i.org)).not.toContain(org);
      expect((await json(await owner.session(`/api/orgs/${org}/invitations`))).invitations).toEqual([]);
      const { members } = await json(await owner.session(`/api/orgs/${org}/members`));
      expect(members.map((m: { login: string }) => m.login)).not.toContain('eve');
      // An owner who may invite invites her again: that one holds.
      expect((await post(owner, `/api/orgs/${org}/invitations`, { login: 'eve', role: 'member' })).status).toBe(201);
      expect((await post(eve, `/api/orgs/${org}/invitations/eve/accept`)).status).toBe(200);
    }
  });

  it('can be declined, or withdrawn by an owner', async () => {
    await newOrg('inv-decline');
    expect((await post(owner, '/api/orgs/inv-decline/invitations', { login: 'eve', role: 'member' })).status).toBe(201);
    expect((await post(eve, '/api/orgs/inv-decline/invitations/eve/decline')).status).toBe(204);
    expect((await post(eve, '/api/orgs/inv-decline/invitations/eve/accept')).status).toBe(404);
    expect((await post(owner, '/api/orgs/inv-decline/invitations', { login: 'eve', role: 'owner' })).status).toBe(201);
    expect((await json(await owner.session('/api/orgs/inv-decline/invitations'))).invitations).toHaveLength(1);
    expect((await owner.session('/api/orgs/inv-decline/invitations/eve', { method: 'DELETE' })).status).toBe(204);
    expect((await post(eve, '/api/orgs/inv-decline/invitations/eve/accept')).status).toBe(404);
  });
});

describe('roles', () => {
  it('are changed by owners only: a maintainer cannot make themselves an owner', async () => {
    await newOrg('roles-co');
    await join('roles-co', bob, 'bob', 'maintainer');
    const escalate = await bob.session('/api/orgs/roles-co/members/bob', { method: 'PUT', body: { role: 'owner' } });
    expect(escalate.status).toBe(403);
    expect((await json(escalate)).error.code).toBe('forbidden');
    expect((await bob.session('/api/orgs/roles-co/members/olive', { method: 'PUT', body: { role: 'member' } })).status).toBe(403);
    expect((await bob.session('/api/orgs/roles-co/members/olive', { method: 'DELETE' })).status).toBe(403);
    const promoted = await owner.session('/api/orgs/roles-co/members/bob', { method: 'PUT', body: { role: 'owner' } });
    expect(await json(promoted)).toMatchObject({ login: 'bob', role: 'owner' });
  });

  it('never leave an organisation without an owner (409 last_owner)', async () => {
    await newOrg('last-co');
    await join('last-co', bob, 'bob', 'member');
    const demote = await owner.session('/api/orgs/last-co/members/olive', { method: 'PUT', body: { role: 'maintainer' } });
    expect(demote.status).toBe(409);
    expect((await json(demote)).error.code).toBe('last_owner');
    expect((await owner.session('/api/orgs/last-co/members/olive', { method: 'DELETE' })).status).toBe(409);
    // Two owners demoting each other at once: one of them stays an owner.
    expect((await owner.session('/api/orgs/last-co/members/bob', { method: 'PUT', body: { role: 'owner' } })).status).toBe(200);
    const [a, b] = await Promise.all([
      owner.session('/api/orgs/last-co/members/bob', { method: 'PUT', body: { role: 'member' } }),
      bob.session('/api/orgs/last-co/members/olive', { method: 'PUT', body: { role: 'member' } }),
    ]);
    // One wins; the other finds the last owner (409), or is no longer an owner itself (403).
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const { members } = await json(await owner.session('/api/orgs/last-co/members'));
    expect(members.filter((m: { role: string }) => m.role === 'owner')).toHaveLength(1);
  });

  it('let a member leave on their own, and stop counting them at once', async () => {
    await newOrg('leave-co');
    await join('leave-co', eve, 'eve', 'member');
    expect((await eve.session('/api/orgs/leave-co/members/eve', { method: 'DELETE' })).status).toBe(204);
    expect((await eve.session('/api/orgs/leave-co/members')).status).toBe(403);
    expect((await json(await eve.session('/api/me/orgs'))).orgs.map((o: { login: string }) => o.login)).not.toContain('leave-co');
  });
});

describe('the audit log', () => {
  it('records each change for the owners, newest first, without secrets', async () => {
    await newOrg('audit-co');
    await join('audit-co', bob, 'bob', 'maintainer');
    expect((await owner.session('/api/orgs/audit-co/members/bob', { method: 'PUT', body: { role: 'member' } })).status).toBe(200);
    expect((await owner.session('/api/orgs/audit-co/members/bob', { method: 'DELETE' })).status).toBe(204);
    const res = await owner.session('/api/orgs/audit-co/audit');
    expect(res.status).toBe(200);
    const { entries, nextCursor } = await json(res);
    expect(nextCursor).toBeUndefined();
    expect(entries.map((e: { action: string; actor: string; target: string; details?: unknown }) => [e.action, e.actor, e.target, e.details])).toEqual([
      ['member.removed', 'olive', 'bob', { role: 'member' }],
      ['member.role_changed', 'olive', 'bob', { from: 'maintainer', to: 'member' }],
      ['invitation.accepted', 'bob', 'bob', { role: 'maintainer' }],
      ['invitation.created', 'olive', 'bob', { role: 'maintainer' }],
    ]);
    expect((await bob.session('/api/orgs/audit-co/audit')).status).toBe(403);
  });

  it('pages 50 entries at a time with a cursor, and refuses a cursor it did not give', async () => {
    await newOrg('audit-pages');
    for (let i = 0; i < 27; i++) {
      expect((await post(owner, '/api/orgs/audit-pages/invitations', { login: 'eve', role: 'member' })).status).toBe(201);
      expect((await owner.session('/api/orgs/audit-pages/invitations/eve', { method: 'DELETE' })).status).toBe(204);
    }
    const first = await json(await owner.session('/api/orgs/audit-pages/audit'));
    expect(first.entries).toHaveLength(50);
    expect(first.entries[0].action).toBe('invitation.revoked');
    const second = await json(await owner.session(`/api/orgs/audit-pages/audit?cursor=${first.nextCursor}`));
    expect(second.entries).toHaveLength(4);
    expect(second.nextCursor).toBeUndefined();
    const times = [...first.entries, ...second.entries].map((e: { at: string }) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect((await owner.session('/api/orgs/audit-pages/audit?cursor=bm9wZQ')).status).toBe(400);
  });
});

describe('the audit log, of what touches who may install', () => {
  it('records prices, grants, download tokens and keys narrowed to its skills, without a secret', async () => {
    await newOrg('audit-access');
    const key = await owner.createKey('org-publisher');
    const published = await withKey(stack, key, '/api/publish', { body: skillBody({ owner: 'audit-access', paid: true }) });
    expect(published.status, await published.clone().text()).toBe(201);
    const skill = await json<{ id: string; slug: string }>(published);
    expect((await withKey(stack, key, `/api/skills/${skill.id}`, { method: 'PATCH', body: { price: { amount: 900, currency: 'EUR' } } })).status).toBe(200);
    expect((await withKey(stack, key, `/api/skills/${skill.id}/grants`, { body: { login: 'eve' } })).status).toBe(201);
    expect((await withKey(stack, key, `/api/skills/${skill.id}/grants/eve`, { method: 'DELETE' })).status).toBe(204);
    const minted = await json(await withKey(stack, key, `/api/skills/${skill.id}/download-tokens`, { body: {} }));
    expect((await withKey(stack, key, `/api/skills/${skill.id}/download-tokens/${minted.id}`, { method: 'DELETE' })).status).toBe(204);
    const narrowed = await json(await post(owner, '/api/api-keys', { name: 'one skill', scopes: ['read'], skills: [skill.id] }));
    expect((await owner.session(`/api/api-keys/${narrowed.id}`, { method: 'DELETE' })).status).toBe(204);

    const res = await owner.session('/api/orgs/audit-access/audit');
    const text = await res.text();
    const entries = JSON.parse(text).entries.map((e: { action: string; target: string; details?: unknown }) => [e.action, e.target, e.details]);
    expect(entries.slice(0, 7)).toEqual([
      ['key.revoked', narrowed.id, { name: 'one skill', scopes: ['read'], skills: [skill.slug], expiresAt: null }],
      ['key.created', narrowed.id, { name: 'one skill', scopes: ['read'], skills: [skill.slug], expiresAt: null }],
      ['download_token.revoked', skill.slug, { tokenId: minted.id }],
      ['download_token.created', skill.slug, { tokenId: minted.id, expiresAt: minted.expiresAt, maxUses: null }],
      ['grant.revoked', skill.slug, { login: 'eve' }],
      ['grant.created', skill.slug, { login: 'eve' }],
      ['skill.price_changed', skill.slug, { from: null, to: { amount: 900, currency: 'EUR' } }],
    ]);
    expect(text).not.toContain(minted.token);
    expect(text).not.toContain(narrowed.key);
  });

  it('refuses a cursor it did not give, garbled or well formed, with 400 invalid_request', async () => {
    await newOrg('audit-cursors');
    expect((await post(owner, '/api/orgs/audit-cursors/invitations', { login: 'eve', role: 'member' })).status).toBe(201);
    const forged = Buffer.from('2020-01-01T00:00:00.000Z#abcdef', 'utf8').toString('base64url');
    const ofAnotherLog = (await json(await owner.session('/api/orgs/audit-pages/audit'))).nextCursor;
    for (const cursor of [forged, ofAnotherLog, 'bm9wZQ', '%00%ff', 'x'.repeat(300)]) {
      const res = await owner.session(`/api/orgs/audit-cursors/audit?cursor=${cursor}`);
      expect([cursor, res.status, (await json(res)).error?.code]).toEqual([cursor, 400, 'invalid_request']);
    }
  });
});

describe('deleting an organisation', () => {
  it('frees its login when it owns no skill', async () => {
    await newOrg('short-lived');
    await join('short-lived', bob, 'bob', 'owner');
    expect((await eve.session('/api/orgs/short-lived', { method: 'DELETE' })).status).toBe(403);
    expect((await owner.session('/api/orgs/short-lived', { method: 'DELETE' })).status).toBe(204);
    expect((await stack.request('/api/orgs/short-lived')).status).toBe(404);
    expect((await json(await bob.session('/api/me/orgs'))).orgs.map((o: { login: string }) => o.login)).not.toContain('short-lived');
    await newOrg('short-lived', eve);
    // A new organisation of the login starts a log of its own.
    const fresh = (await json(await eve.session('/api/orgs/short-lived/audit'))).entries;
    expect(fresh).toEqual([]);
  });

  it('keeps its audit log, ended by org.deleted, for the admins to read', async () => {
    const admin = await Client.signIn(stack, 'root');
    await newOrg('kept-log');
    await join('kept-log', bob, 'bob', 'maintainer');
    expect((await owner.session('/api/orgs/kept-log', { method: 'DELETE' })).status).toBe(204);
    expect((await owner.session('/api/orgs/kept-log/audit')).status).toBe(404);
    const res = await admin.session('/api/orgs/kept-log/audit');
    expect(res.status).toBe(200);
    expect((await json(res)).entries.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([
      ['org.deleted', 'olive'],
      ['invitation.accepted', 'bob'],
      ['invitation.created', 'olive'],
    ]);
    // A new organisation of that login: its owners read their own entries only; the admins read both.
    await newOrg('kept-log', eve);
    expect((await json(await eve.session('/api/orgs/kept-log/audit'))).entries).toEqual([]);
    expect((await json(await admin.session('/api/orgs/kept-log/audit'))).entries).toHaveLength(3);
  });
});
