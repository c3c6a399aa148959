import { Button, Tooltip, type ButtonProps, type TooltipProps } from 'antd';

type Props = Omit<ButtonProps, 'children'> & { label: string; placement?: TooltipProps['placement']; 'data-testid'?: string };

/** An icon button whose tooltip is also its accessible name; other props go to the button. */
export function TipButton({ label, placement, ...button }: Props) {
  return (
    <Tooltip title={label} placement={placement}>
      <Button aria-label={label} {...button} />
    </Tooltip>
  );
}
