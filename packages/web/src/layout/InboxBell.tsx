import { BellOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button } from 'antd';
import { useNavigate } from 'react-router';
import { apiGet } from '../lib/api';

/** Inbox bell with the unread count, polled every 30 s; failures are only logged. */
export function InboxBell() {
  const navigate = useNavigate();
  const { data } = useQuery({
    queryKey: ['unread_count'],
    queryFn: async () => {
      try {
        const d = await apiGet<{ unread_count: number }>('/api/user/messages/unread_count', { silent: true });
        return d?.unread_count ?? 0;
      } catch (err) {
        console.warn('unread count failed', err);
        return 0;
      }
    },
    refetchInterval: 30_000,
  });
  return (
    <Badge count={data ?? 0} overflowCount={99} size="small" offset={[-4, 4]}>
      <Button
        type="text"
        shape="circle"
        aria-label="inbox"
        data-testid="inbox-bell"
        icon={<BellOutlined />}
        onClick={() => navigate('/app/inbox')}
      />
    </Badge>
  );
}
