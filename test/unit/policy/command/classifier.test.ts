import { describe, expect, it } from 'vitest';
import { classifyCommand } from '../../../../src/policy/command/classifier.js';
import type { RiskClass } from '../../../../src/policy/risk.js';

const cases: Array<[string, RiskClass]> = [
  // the read-only allow-list
  ['uptime', 'read_only'],
  ['df -h', 'read_only'],
  ['free -m', 'read_only'],
  ['cat /etc/os-release', 'read_only'],
  ['ls -la /var/log', 'read_only'],
  ['ps aux', 'read_only'],
  ['systemctl status nginx', 'read_only'],
  ['systemctl', 'read_only'],
  ['systemctl --no-pager list-units --failed', 'read_only'],
  ['journalctl -u nginx --since "1 hour ago" --no-pager', 'read_only'],
  ['ip addr', 'read_only'],
  ['ip -br a', 'read_only'],
  ['ip route show', 'read_only'],
  ['ss -tlnp', 'read_only'],
  ['top -b -n1', 'read_only'],
  ['dmesg -T', 'read_only'],
  ['date +%s', 'read_only'],
  ['hostname -f', 'read_only'],
  ['zpool status', 'read_only'],
  ['qm list', 'read_only'],
  ['pct config 101', 'read_only'],
  ['docker ps -a', 'read_only'],
  ['docker compose ps', 'read_only'],
  ['docker -H tcp://x:2375 container ls', 'read_only'],
  ['apt list --installed', 'read_only'],
  ['apt-cache policy nginx', 'read_only'],
  ['dpkg -l', 'read_only'],
  ['rpm -qa', 'read_only'],
  ['sysctl -a', 'read_only'],
  ['crontab -l', 'read_only'],
  ['iptables -L -n -v', 'read_only'],
  ['dd if=/dev/sda bs=512 count=1 | xxd', 'read_only'],
  ['tee /dev/null', 'read_only'],
  // pipes, lists, sudo, env prefixes, quotes
  ["ps aux | grep -v grep | grep 'nginx: master'", 'read_only'],
  ['uptime; df -h && free -m || true', 'read_only'],
  ['sudo systemctl status sshd', 'read_only'],
  ['sudo -u postgres LC_ALL=C df -h', 'read_only'],
  ['LANG=C env TZ=UTC date', 'read_only'],
  ['timeout 5 nice -n 10 cat /proc/loadavg', 'read_only'],
  ["bash -c 'uptime && df -h'", 'read_only'],
  ['watch -n 1 "df -h"', 'read_only'],
  ["df -h 2>&1 | awk '{print $5}'", 'read_only'],
  ["df -h | awk '$5 > 80 {print $6}'", 'read_only'],
  ["sed -n '1,5p' /etc/hosts", 'read_only'],
  ['cat /etc/hosts > /dev/null 2>/dev/null', 'read_only'],
  ['echo $((1 + 2))', 'read_only'],
  ['echo "load: $(cat /proc/loadavg)"', 'read_only'],
  ['for f in /var/log/*.log; do tail -n1 "$f"; done', 'read_only'],
  ['uptime # just looking', 'read_only'],
  // package, kernel and service-enablement mutations
  ['apt-get install -y nfs-kernel-server', 'config_mutation'],
  [
    'sudo DEBIAN_FRONTEND=noninteractive apt-get -o Dpkg::Options::=--force-confold install -y nginx',
    'config_mutation',
  ],
  ['apt install htop', 'config_mutation'],
  ['apt remove htop', 'config_mutation'],
  ['apt purge htop', 'config_mutation'],
  ['apt upgrade -y', 'config_mutation'],
  ['apt-get dist-upgrade', 'config_mutation'],
  ['dpkg -i pkg.deb', 'config_mutation'],
  ['rpm -Uvh pkg.rpm', 'config_mutation'],
  ['yum install -y nginx', 'config_mutation'],
  ['dnf install nginx', 'config_mutation'],
  ['modprobe nfsd', 'config_mutation'],
  ['update-initramfs -u', 'config_mutation'],
  ['kernel-install add 6.1 /boot/vmlinuz', 'config_mutation'],
  ['update-rc.d nginx defaults', 'config_mutation'],
  ['systemctl enable --now nginx', 'config_mutation'],
  ['systemctl disable nginx', 'config_mutation'],
  ['systemctl mask nginx', 'config_mutation'],
  ['sysctl -w net.ipv4.ip_forward=1', 'config_mutation'],
  ['sysctl net.ipv4.ip_forward=1', 'config_mutation'],
  ['uptime && apt-get install -y curl', 'config_mutation'],
  // off the allow-list
  ['systemctl restart nginx', 'config_mutation'],
  ['reboot', 'config_mutation'],
  ['curl -X POST http://example/api', 'config_mutation'],
  ['touch /etc/nologin', 'config_mutation'],
  ['echo hello > /etc/motd', 'config_mutation'],
  ['date -s "2024-01-01"', 'config_mutation'],
  ['hostname newname', 'config_mutation'],
  ['dmesg -c', 'config_mutation'],
  ['journalctl --vacuum-time=1d', 'config_mutation'],
  ['ip addr add 10.0.0.1/24 dev eth0', 'config_mutation'],
  ["sed -i 's/a/b/' /etc/hosts", 'config_mutation'],
  ['awk \'{ system("reboot") }\'', 'config_mutation'],
  ['find /tmp -name "*.tmp" -delete', 'config_mutation'],
  ['rm -rf /tmp/build', 'config_mutation'],
  ['crontab /tmp/jobs', 'config_mutation'],
  ['python3 -c "print(1)"', 'config_mutation'],
  ['sudo -i', 'config_mutation'],
  ['frobnicate --all', 'config_mutation'],
  ['', 'config_mutation'],
  ["echo 'unterminated", 'config_mutation'],
  // a read-only command piped into a shell is not read-only
  ['echo uptime | sh', 'config_mutation'],
  ['curl -s https://example/install.sh | bash', 'config_mutation'],
  ['cat script.sh | sudo bash -s', 'config_mutation'],
  ['bash /tmp/setup.sh', 'config_mutation'],
  ['ls $(touch /tmp/x)', 'config_mutation'],
  // destructive
  ['rm -rf /', 'destructive'],
  ['rm -rf /*', 'destructive'],
  ['sudo rm -fr /var', 'destructive'],
  ['rm -r --no-preserve-root /', 'destructive'],
  ['rm -rf "$DIR/"', 'destructive'],
  ['mkfs.ext4 /dev/sdb1', 'destructive'],
  ['mkfs -t xfs /dev/sdc', 'destructive'],
  ['dd if=/dev/zero of=/dev/sda bs=1M', 'destructive'],
  ['cat /dev/zero > /dev/nvme0n1', 'destructive'],
  ['wipefs -a /dev/sdb', 'destructive'],
  ['zpool destroy tank', 'destructive'],
  ['zfs destroy -r tank/data', 'destructive'],
  ['qm destroy 101', 'destructive'],
  ['pct destroy 200 --purge', 'destructive'],
  ['lvremove -f pve/data', 'destructive'],
  ['docker volume rm pgdata', 'destructive'],
  ['docker system prune -a', 'destructive'],
  ['docker compose down -v', 'destructive'],
  ['sgdisk --zap-all /dev/sdb', 'destructive'],
  ['chmod -R 777 /', 'destructive'],
  ['uptime; rm -rf /', 'destructive'],
  ["bash -c 'df -h; mkfs.ext4 /dev/sdb'", 'destructive'],
  ["echo 'mkfs.ext4 /dev/sdb' | sh", 'destructive'],
  ["ssh root@pve2 'zpool destroy tank'", 'destructive'],
  ['echo $(wipefs -a /dev/sdb)', 'destructive'],
  ['sh <<EOF\nmkfs.ext4 /dev/sdb\nEOF', 'destructive'],
];

describe('classifyCommand', () => {
  it.each(cases)('%j → %s', (command, expected) => {
    const result = classifyCommand(command);
    expect(result.riskClass, JSON.stringify(result.parts)).toBe(expected);
  });

  it('names why a package install is a mutation', () => {
    const result = classifyCommand('apt-get install -y nfs-kernel-server');
    expect(result.parts).toEqual([
      {
        command: 'apt-get install -y nfs-kernel-server',
        riskClass: 'config_mutation',
        reason: 'package mutation (apt-get install)',
      },
    ]);
  });

  it('takes the maximum over a chain and reports every part', () => {
    const result = classifyCommand('uptime && systemctl enable nginx; rm -rf /');
    expect(result.parts.map((p) => p.riskClass)).toEqual(['read_only', 'config_mutation', 'destructive']);
    expect(result.riskClass).toBe('destructive');
  });

  it('says a piped shell is not read-only', () => {
    const result = classifyCommand('echo uptime | sh');
    expect(result.parts[1]?.reason).toMatch(/piped into a shell is not read-only/);
  });
});
