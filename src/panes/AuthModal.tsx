import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useServices } from '../app/AppContext';
import type { AuthModalMode } from '../services/stores/ui';
import { Dialog } from './Dialog';
import { FormNotice } from './FormNotice';
import { WalletKitHost } from './WalletKitHost';

const TITLES: Record<AuthModalMode, string> = {
  login: 'Login',
  signup: 'Sign Up',
  'forgot-password': 'Reset Password',
  'tfa-verify': 'Enter Verification Code',
};

/** docs/product.md §4 wallet sign-in states, as the button shows them. */
const WALLET_STEP = {
  idle: 'Sign in with a wallet',
  signing: 'Sign the message in your wallet...',
  verifying: 'Verifying signature...',
} as const;

/** A form submit that never reloads the page. */
const onSubmit = (action: () => void) => (event: FormEvent) => {
  event.preventDefault();
  action();
};

/** docs/product.md §2/§4 auth modal: LOGIN, SIGNUP, FORGOT_PASSWORD and TFA_VERIFY. */
/** The 2FA step's help: the app's code, or a recovery code saved when 2FA was turned on. */
export const TFA_HINT =
  'Enter the 6-digit code from your authenticator app, or one of your recovery codes if you cannot reach it.';

/** Under the login form once the server made the account wait: the way in for an account with 2FA on. */
export const LOGIN_CODE_HINT = 'Have your 2FA code? Enter it to sign in now.';

export function AuthModal() {
  useSignals();
  const { stores, auth } = useServices();
  const mode = stores.ui.authModal.value;
  const open = mode !== null;
  const [fields, setFields] = useState({ username: '', email: '', password: '', code: '', remember: false });

  useEffect(() => {
    if (open) void auth.modal.opened();
  }, [open, auth]);

  // Focus follows the step: after sign-up the login form's first empty field (or Login), on the 2FA
  // step its code field; once logged in, the window closes and the command line has it back.
  const form = useRef<HTMLFormElement>(null);
  const previous = useRef(mode);
  const focusNext = useRef(false);
  const loggedIn = stores.session.isLoggedIn.value;
  const working = stores.auth.busy.value.has('auth');
  const codeOffered = stores.auth.loginCodeOffered.value;
  // When the wait is answered, the code field appears and takes focus (once the form is enabled again).
  const codeField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (codeOffered && !working && mode === 'login') codeField.current?.focus();
  }, [codeOffered, working, mode]);
  useEffect(() => {
    const was = previous.current;
    previous.current = mode;
    if (was === mode) return;
    if (mode === null) {
      if (loggedIn && (was === 'login' || was === 'tfa-verify')) stores.ui.requestTerminalFocus();
      return;
    }
    focusNext.current = was !== null;
  }, [mode, loggedIn, stores.ui]);
  // The fields are disabled while the step's call runs: focus moves once they are enabled again.
  useEffect(() => {
    if (!focusNext.current || working || form.current === null) return;
    focusNext.current = false;
    const fields = [...form.current.querySelectorAll<HTMLInputElement>('input[required]')];
    const next = fields.find((f) => f.value === '') ?? form.current.querySelector('button[type="submit"]');
    (next as HTMLElement | null)?.focus();
  }, [mode, working]);

  if (mode === null) return null;
  // The wallet kit's own windows stand in for this one while it is open (one focus trap at a time).
  if (stores.auth.walletKitOpen.value) return <WalletKitHost />;
  const busy = stores.auth.busy.value.has('auth');
  const notice = stores.auth.notices.value.auth;
  const walletStep = stores.auth.walletSignIn.value;
  const providers = stores.auth.providers.value;
  const set = (name: keyof typeof fields) => (event: { currentTarget: HTMLInputElement }) => {
    const { type, checked, value } = event.currentTarget;
    setFields((f) => ({ ...f, [name]: type === 'checkbox' ? checked : value }));
  };
  const input = (name: 'username' | 'email' | 'password' | 'code', label: string, type = 'text') => (
    <label className="field wide">
      <span>{label}</span>
      <input
        type={type}
        name={name}
        value={fields[name]}
        onChange={set(name)}
        disabled={busy}
        required
        autoComplete={
          name === 'password'
            ? mode === 'signup'
              ? 'new-password'
              : 'current-password'
            : name === 'code'
              ? 'one-time-code'
              : name
        }
      />
    </label>
  );

  return (
    <Dialog label={TITLES[mode]} className="auth-modal" onClose={() => auth.modal.close()}>
      {(mode === 'login' || mode === 'signup') && (
        <div className="tabs" role="tablist">
          {(['login', 'signup'] as const).map((tab) => (
            <button
              key={tab}
              type="button"
              role="tab"
              aria-selected={mode === tab}
              className={`tab${mode === tab ? ' active' : ''}`}
              onClick={() => auth.modal.switchTo(tab)}
            >
              {TITLES[tab]}
            </button>
          ))}
        </div>
      )}
      <h2>{TITLES[mode]}</h2>
      {mode === 'login' && (
        <form
          ref={form}
          className="auth-form"
          onSubmit={onSubmit(
            () =>
              void auth.modal.login({
                username: fields.username,
                password: fields.password,
                rememberMe: fields.remember,
                ...(codeOffered ? { code: fields.code } : {}),
              }),
          )}
        >
          {input('username', 'Username or email')}
          {input('password', 'Password', 'password')}
          {codeOffered && (
            <>
              <p className="auth-hint" data-testid="login-code-hint">
                {LOGIN_CODE_HINT}
              </p>
              <label className="field wide">
                <span>2FA code</span>
                <input
                  ref={codeField}
                  type="text"
                  name="code"
                  value={fields.code}
                  onChange={set('code')}
                  disabled={busy}
                  autoComplete="one-time-code"
                />
              </label>
            </>
          )}
          <label className="checkbox">
            <input type="checkbox" checked={fields.remember} onChange={set('remember')} disabled={busy} />
            <span>Remember me</span>
          </label>
          <button type="submit" className="button primary" disabled={busy}>
            Login
          </button>
          <button
            type="button"
            className="link-button"
            onClick={() => auth.modal.switchTo('forgot-password')}
          >
            Forgot password?
          </button>
        </form>
      )}
      {mode === 'login' && (
        <div className="auth-alternatives">
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() => auth.modal.openWalletKit(fields.remember)}
          >
            {WALLET_STEP[walletStep]}
          </button>
          {providers.google && (
            <a className="button" href={auth.modal.socialLoginUrl('google', fields.remember)}>
              Sign in with Google
            </a>
          )}
          {providers.twitter && (
            <a className="button" href={auth.modal.socialLoginUrl('twitter', fields.remember)}>
              Sign in with Twitter
            </a>
          )}
        </div>
      )}
      {mode === 'signup' && (
        <form
          className="auth-form"
          onSubmit={onSubmit(
            () =>
              void auth.modal.signup({
                email: fields.email,
                username: fields.username,
                password: fields.password,
              }),
          )}
        >
          {input('email', 'Email', 'email')}
          {input('username', 'Username')}
          {input('password', 'Password', 'password')}
          <button type="submit" className="button primary" disabled={busy}>
            Sign Up
          </button>
        </form>
      )}
      {mode === 'forgot-password' && (
        <form className="auth-form" onSubmit={onSubmit(() => void auth.modal.forgot(fields.email))}>
          {input('email', 'Email', 'email')}
          <button type="submit" className="button primary" disabled={busy}>
            Send Reset Link
          </button>
          <button type="button" className="link-button" onClick={() => auth.modal.switchTo('login')}>
            Back to Login
          </button>
        </form>
      )}
      {mode === 'tfa-verify' && (
        <form
          ref={form}
          className="auth-form"
          onSubmit={onSubmit(() => void auth.modal.verifyCode(fields.code))}
        >
          <p className="auth-hint" data-testid="tfa-hint">
            {TFA_HINT}
          </p>
          {input('code', 'Verification code')}
          <button type="submit" className="button primary" disabled={busy}>
            Verify
          </button>
          <button type="button" className="link-button" onClick={() => auth.modal.switchTo('login')}>
            Back to Login
          </button>
        </form>
      )}
      <FormNotice notice={notice} testId="auth-notice" />
      <button type="button" className="button" onClick={() => auth.modal.close()}>
        Close
      </button>
    </Dialog>
  );
}
