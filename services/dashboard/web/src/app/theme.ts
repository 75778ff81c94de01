import { Alert, Badge, createTheme, Drawer, InputWrapper, Modal } from '@mantine/core';

// Contrast (WCAG AA, 4.5:1 on white) and names where Mantine's defaults fall short: dark text on
// tinted badges and alert titles, darker input descriptions and filled buttons, and a name on every
// close button.
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  components: {
    Badge: Badge.extend({
      defaultProps: { variant: 'light' },
      vars: (_theme, props) =>
        props.variant === undefined || props.variant === 'light' || props.variant === 'outline'
          ? { root: { '--badge-color': 'var(--mantine-color-dark-8)' } }
          : { root: {} },
    }),
    // A light alert's title is its color's 6th shade on a tint of it: below 4.5:1 for green and orange.
    Alert: Alert.extend({
      vars: (_theme, props) =>
        props.variant === undefined || props.variant === 'light'
          ? { root: { '--alert-color': 'var(--mantine-color-dark-8)' } }
          : { root: {} },
    }),
    InputWrapper: InputWrapper.extend({ styles: { description: { color: 'var(--mantine-color-gray-7)' } } }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});
