import { Button, Tooltip, type ButtonProps, type TooltipProps } from 'antd';

type Props = Omit<ButtonProps, 'children'> & {
  label: string;
  placement?: TooltipProps['placement'];
  /** Small and borderless, as in a table row or beside a title. */
  subtle?: boolean;
  'data-testid'?: string;
};

/** An icon button whose tooltip is also its accessible name; other props go to the button. */
export function TipButton({ label, placement, subtle = false, ...button }: Props) {
  const look: ButtonProps = subtle ? { type: 'text', size: 'small' } : {};
  return (
    <Tooltip title={label} placement={placement}>
      <Button aria-label={label} {...look} {...button} />
    </Tooltip>
  );
}
