export * as account from './account';
export { createAuthClient, type AuthClient } from './client';
export * as flows from './flows';
export { AUTH_TEXT, isCodeShaped } from './messages';
export { createAuthModels, RESET_REDIRECT_MS, type AuthModels } from './models';
export { beginSession, endSession, loadUser, resumeSession } from './session';
