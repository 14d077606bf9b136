import { isStringArray, readJson, STORAGE_PREFIX, writeJson, type StoragePort } from '../storage';

/** Where this browser remembers which signals it alerted on. */
export const ALERTED_KEY = `${STORAGE_PREFIX}alertedSignals`;
/** Ids remembered; the oldest go first. A retraction comes within a day, long before 200 alerts. */
export const ALERTED_CAP = 200;

/**
 * The signals this browser alerted on, kept across reloads, so that the retraction of one alerts too
 * (whatever the threshold by then), and only once.
 */
export interface AlertMemory {
  alerted(id: string): boolean;
  rememberAlert(id: string): void;
  /** True the first time only: the retraction of `id` has not been alerted yet. */
  firstRetraction(id: string): boolean;
}

export function createAlertMemory(storage: StoragePort): AlertMemory {
  const read = (key: string) => readJson(storage, key, isStringArray, []);
  const alerted = read(ALERTED_KEY);
  const retracted = read(`${ALERTED_KEY}.retracted`);
  const push = (list: string[], key: string, id: string) => {
    if (list.includes(id)) return;
    list.push(id);
    if (list.length > ALERTED_CAP) list.splice(0, list.length - ALERTED_CAP);
    writeJson(storage, key, list);
  };
  return {
    alerted: (id) => alerted.includes(id),
    rememberAlert: (id) => push(alerted, ALERTED_KEY, id),
    firstRetraction(id) {
      if (retracted.includes(id)) return false;
      push(retracted, `${ALERTED_KEY}.retracted`, id);
      return true;
    },
  };
}
