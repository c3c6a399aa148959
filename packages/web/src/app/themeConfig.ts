import { theme as antTheme, type ThemeConfig } from 'antd';
import type { ThemeMode } from '../lib/theme';

/**
 * Colours chosen for WCAG AA contrast (4.5:1 for text) in both themes; Ant Design's defaults fall short on primary
 * buttons, selected menu items, links and secondary text (#1677ff on white is 4.1:1, 45% black is 3.4:1).
 */
const LIGHT = {
  /** Blue 7: white on it 6.2:1; on white and on its pale selection background 5.5:1 or more. */
  primary: '#0958d9',
  /** Red 7 (5.9:1 on white) for danger buttons' text and errors. */
  error: '#cf1322',
  textTertiary: 'rgba(0, 0, 0, 0.6)',
  placeholder: 'rgba(0, 0, 0, 0.6)',
  layout: '#f5f7fb',
  surface: '#ffffff',
  header: 'rgba(255,255,255,0.88)',
};
const DARK = {
  /** Seed of the dark palette: its primary (#5c99dc) reads 6:1 as text on the dark surfaces. */
  primary: '#69b1ff',
  /** Primary buttons stay a deeper blue: white on it 5.2:1. */
  button: '#1668dc',
  buttonHover: '#2a74de',
  buttonActive: '#0f55b8',
  /** Selected menu item's text on its blue-grey background. */
  menuSelected: '#d6e9ff',
  /** Seed of the dark error palette: its text (#dc6966) reads 5:1 on the dark surfaces. */
  error: '#ff7875',
  /** Text on a solid danger button (a confirmation's OK): white on that red is 3.4:1, near-black over 5.5:1. */
  dangerSolidText: 'rgba(0, 0, 0, 0.88)',
  textTertiary: 'rgba(255, 255, 255, 0.6)',
  placeholder: 'rgba(255, 255, 255, 0.5)',
  layout: '#0b0d12',
  surface: '#15171d',
  elevated: '#1c1f26',
  header: 'rgba(21,23,29,0.88)',
};

/** The console's Ant Design theme for the light or dark mode. */
export function themeConfig(mode: ThemeMode): ThemeConfig {
  const dark = mode === 'dark';
  const c = dark ? DARK : LIGHT;
  return {
    algorithm: dark ? antTheme.darkAlgorithm : antTheme.defaultAlgorithm,
    token: {
      colorPrimary: c.primary,
      colorInfo: c.primary,
      colorError: c.error,
      colorLink: dark ? '#5c99dc' : LIGHT.primary,
      colorTextTertiary: c.textTertiary,
      colorTextDescription: c.textTertiary,
      colorTextPlaceholder: c.placeholder,
      borderRadius: 8,
      colorBgLayout: c.layout,
      colorBgContainer: c.surface,
      colorBgElevated: dark ? DARK.elevated : LIGHT.surface,
    },
    components: {
      Layout: {
        headerBg: c.header,
        headerHeight: 56,
        headerPadding: '0 16px',
        siderBg: c.surface,
        bodyBg: c.layout,
        footerBg: 'transparent',
      },
      Menu: {
        itemBg: 'transparent',
        subMenuItemBg: 'transparent',
        horizontalItemSelectedBg: 'transparent',
        itemBorderRadius: 8,
        ...(dark ? { itemSelectedColor: DARK.menuSelected, horizontalItemSelectedColor: '#8fbef0' } : {}),
      },
      Card: { borderRadiusLG: 12 },
      ...(dark
        ? {
            Button: {
              dangerColor: DARK.dangerSolidText,
              colorPrimary: DARK.button,
              colorPrimaryHover: DARK.buttonHover,
              colorPrimaryActive: DARK.buttonActive,
            },
          }
        : {}),
    },
  };
}
