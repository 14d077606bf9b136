import { DeviceInfo } from '../../../src/contracts/auth';
import { describeUserAgent } from '../../../src/contracts/userAgent';
import type { StoredDeviceInfo } from '../../db/schema';
import { sha256 } from './crypto';

/** The device_info form field (JSON text) when it is valid, else what the User-Agent says. */
export function deviceInfoFrom(field: string | undefined, userAgent: string | undefined): StoredDeviceInfo {
  if (field !== undefined && field !== '') {
    try {
      const parsed = DeviceInfo.safeParse(JSON.parse(field));
      if (parsed.success) return parsed.data;
    } catch {
      // not JSON: fall through to the header
    }
  }
  return describeUserAgent(userAgent);
}

/** A stable, non-secret fingerprint of a browser: what it says about itself, hashed. */
export function fingerprintOf(info: StoredDeviceInfo, userAgent: string | undefined): string {
  return sha256(`${userAgent ?? ''}\n${info.browser}\n${info.os}`);
}
