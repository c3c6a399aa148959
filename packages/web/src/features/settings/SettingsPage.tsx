/** System and operation settings (spec 1 §2, spec 2 §2): placeholder until the settings feature lands. */
export default function SettingsPage() {
  return null;
}
