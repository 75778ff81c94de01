import { Link, useNavigate, type LinkProps } from 'react-router-dom';

/**
 * A link from one signed-out page to another (sign in, sign up, invite). These routes load nothing,
 * so the navigation commits at once, and with `flushSync` it renders within the click instead of in
 * a transition afterwards: a keystroke that follows at once lands in the form the person now sees,
 * never in the one being replaced.
 */
export function AuthLink({ to, onClick, replace, state, ...props }: LinkProps) {
  const navigate = useNavigate();
  return (
    <Link
      to={to}
      replace={replace}
      state={state}
      {...props}
      onClick={(event) => {
        onClick?.(event);
        // A click the browser handles itself (a new tab or window) stays the browser's.
        if (
          event.defaultPrevented ||
          (props.target !== undefined && props.target !== '_self') ||
          event.button !== 0 ||
          event.metaKey ||
          event.altKey ||
          event.ctrlKey ||
          event.shiftKey
        )
          return;
        event.preventDefault();
        void navigate(to, { flushSync: true, replace, state });
      }}
    />
  );
}
