import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_DETAILS, DeviceList } from '../../src/contracts/auth';
import { deviceInfoOf, placeFromTimeZone } from '../../src/contracts/userAgent';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient } from './auth.support';

describe.each(dbTargets())('remembered devices and password change on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const client = () => new AuthClient(t.app);

  beforeAll(async () => {
    t = await startTestApp(target);
    await client().signup('ann');
    await client().signup('ben');
  });
  afterAll(() => t.close());

  it('remember-me sets a 30-day device cookie and auto-login exchanges it for an access token', async () => {
    const c = client();
    const res = await c.login('ann', undefined, true);
    const device = res.cookies.find((k) => k.name === 'sc_device');
    expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth' });
    const days = ((device?.expires?.getTime() ?? 0) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    // A remembered login's refresh cookie survives the browser session.
    expect(res.cookies.find((k) => k.name === 'sc_refresh')?.expires).toBeInstanceOf(Date);

    c.cookies.delete('sc_refresh');
    c.token = null;
    const auto = await c.send('POST', '/auth/auto-login');
    expect(auto.statusCode).toBe(200);
    c.token = auto.json<{ access_token: string }>().access_token;
    expect((await c.send('GET', '/users/me')).json()).toMatchObject({ username: 'ann' });
    expect(c.cookies.has('sc_refresh')).toBe(true);
  });

  it('answers auto-login 204 without a device cookie and 401 for an unknown one', async () => {
    const c = client();
    expect((await c.send('POST', '/auth/auto-login')).statusCode).toBe(204);
    c.cookies.set('sc_device', 'not-a-device');
    const res = await c.send('POST', '/auth/auto-login');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: AUTH_DETAILS.unknownDevice });
    expect(c.cookies.has('sc_device')).toBe(false);
  });

  it('lists devices with info, fingerprint and last use, and marks the current one', async () => {
    const c = client();
    await c.login('ben', undefined, true);
    const other = client();
    await other.login('ben', undefined, true);
    const res = await c.send('GET', '/auth/devices');
    expect(res.statusCode).toBe(200);
    const devices = DeviceList.parse(res.json());
    expect(devices).toHaveLength(2);
    expect(devices.filter((d) => d.is_current)).toHaveLength(1);
    for (const d of devices) {
      expect(d.device_info).toEqual({ browser: 'Chrome', os: 'Linux' });
      expect(d.device_fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(Date.parse(d.last_used_at)).not.toBeNaN();
    }
    expect((await c.send('GET', '/auth/devices', undefined, { bearer: null })).statusCode).toBe(401);
  });

  it('keeps the approximate place a browser names from its time zone, and nothing else it makes up', async () => {
    await client().signup('cat');
    const c = client();
    const info = deviceInfoOf(
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Firefox/128.0',
      'America/New_York',
    );
    expect(info).toEqual({ browser: 'Firefox', os: 'macOS', place: 'New York, America' });
    const login = await c.send(
      'POST',
      '/auth/token',
      { username: 'cat', password: 'correct horse', remember_me: 'true', device_info: info },
      { form: true },
    );
    c.token = login.json<{ access_token: string }>().access_token;
    const devices = DeviceList.parse((await c.send('GET', '/auth/devices')).json());
    expect(devices.map((d) => d.device_info)).toEqual([info]);
    expect(placeFromTimeZone('Etc/UTC')).toBeUndefined();
    expect(placeFromTimeZone('UTC')).toBeUndefined();
    expect(placeFromTimeZone('America/Argentina/Buenos_Aires')).toBe('Buenos Aires, America');
  });

  it('removing a device kills its refresh family and its device token', async () => {
    const owner = client();
    await owner.login('ben');
    const laptop = client();
    await laptop.login('ben', undefined, true);
    const [current] = DeviceList.parse((await laptop.send('GET', '/auth/devices')).json()).filter(
      (d) => d.is_current,
    );
    const res = await owner.send('DELETE', `/auth/devices/${current?.id ?? ''}`);
    expect(res.statusCode).toBe(200);
    expect((await laptop.refresh()).statusCode).toBe(401);
    expect((await laptop.send('POST', '/auth/auto-login')).statusCode).toBe(401);

    const again = await owner.send('DELETE', `/auth/devices/${current?.id ?? ''}`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ detail: AUTH_DETAILS.deviceNotFound });
    expect((await owner.send('DELETE', '/auth/devices/not-a-uuid')).statusCode).toBe(422);
  });

  it("cannot remove another user's device", async () => {
    const ann = client();
    await ann.login('ann', undefined, true);
    const [annDevice] = DeviceList.parse((await ann.send('GET', '/auth/devices')).json());
    const ben = client();
    await ben.login('ben');
    expect((await ben.send('DELETE', `/auth/devices/${annDevice?.id ?? ''}`)).statusCode).toBe(404);
    expect((await ann.refresh()).statusCode).toBe(200);
  });

  it('revoke-all forgets every device and ends their sessions', async () => {
    const a = client();
    await a.login('ann', undefined, true);
    const b = client();
    await b.login('ann', undefined, true);
    const res = await a.send('POST', '/auth/devices/revoke-all');
    expect(res.statusCode).toBe(200);
    expect(res.json<{ count: number }>().count).toBeGreaterThanOrEqual(2);
    expect(DeviceList.parse((await a.send('GET', '/auth/devices')).json())).toEqual([]);
    expect((await b.refresh()).statusCode).toBe(401);
    expect((await b.send('GET', '/users/me')).statusCode).toBe(401);
    expect((await b.send('POST', '/auth/auto-login')).statusCode).toBe(401);
    // The sign-in that asked goes on, no longer remembered.
    expect((await a.refresh()).statusCode).toBe(200);
  });

  it('changes the password, keeping this session and ending the others', async () => {
    await client().signup('cat');
    const here = client();
    await here.login('cat', undefined, true);
    const there = client();
    await there.login('cat', undefined, true);

    const wrong = await here.send('POST', '/auth/change-password', {
      current_password: 'not it',
      new_password: 'a new password',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ detail: AUTH_DETAILS.wrongCurrentPassword });
    const short = await here.send('POST', '/auth/change-password', {
      current_password: 'correct horse',
      new_password: 'short',
    });
    expect(short.statusCode).toBe(422);

    const ok = await here.send('POST', '/auth/change-password', {
      current_password: 'correct horse',
      new_password: 'a new password',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ message: 'Password changed successfully.' });
    expect((await here.refresh()).statusCode).toBe(200);
    expect((await there.refresh()).statusCode).toBe(401);
    expect((await there.send('POST', '/auth/auto-login')).statusCode).toBe(401);
    expect(DeviceList.parse((await here.send('GET', '/auth/devices')).json())).toHaveLength(1);
    expect((await client().login('cat')).statusCode).toBe(401);
    expect((await client().login('cat', 'a new password')).statusCode).toBe(200);
  });

  it('logging out forgets the device it was remembered on', async () => {
    const c = client();
    await c.login('ann', undefined, true);
    const deviceToken = c.cookies.get('sc_device') ?? '';
    await c.send('POST', '/auth/logout');
    expect(c.cookies.has('sc_device')).toBe(false);
    const replay = client();
    replay.cookies.set('sc_device', deviceToken);
    expect((await replay.send('POST', '/auth/auto-login')).statusCode).toBe(401);
  });
});
