// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the agent's pure parts (userspace/agent/): --listen's
 * address and its loopback test, the authorization file and checking a
 * request's Authorization header. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_int.h"
#include "log.h"
#include "unit_helpers.h"

static void assert_addr(const char *in, const char *want)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[80];
	unsigned int port;

	assert_int_equal(agent_addr__parse(in, &ss, &len), 0);
	port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					     : ((struct sockaddr_in6 *)&ss)->sin6_port);
	agent_addr__format(&ss, port, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(len, ss.ss_family == AF_INET ? sizeof(struct sockaddr_in)
						      : sizeof(struct sockaddr_in6));
}

static bool loopback(const char *in)
{
	struct sockaddr_storage ss;
	socklen_t len;

	assert_int_equal(agent_addr__parse(in, &ss, &len), 0);
	return agent_addr__loopback(&ss);
}

static void test_addr(void **state)
{
	static const char *const bad[] = {
		"",	   "x",		 "65536",  "-1",     "+80",
		"9464 ",   "1.2.3:80",	 "::1:80", "[::1]",  "[::1:80",
		"host:80", "127.0.0.1:", ":80x",   "[zz]:1", "1.2.3.4:99999"};
	struct sockaddr_storage ss;
	socklen_t len;

	(void)state;
	assert_addr("9464", "127.0.0.1:9464");
	assert_addr("0", "127.0.0.1:0");
	assert_addr("0.0.0.0:80", "0.0.0.0:80");
	assert_addr("localhost:9464", "127.0.0.1:9464");
	assert_addr("[::1]:9464", "[::1]:9464");
	assert_addr("[::]:1", "[::]:1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(agent_addr__parse(bad[i], &ss, &len), -EINVAL);
	assert_true(loopback("9464"));
	assert_true(loopback("127.1.2.3:80"));
	assert_true(loopback("[::1]:80"));
	assert_true(loopback("[::ffff:127.0.0.1]:80"));
	assert_false(loopback("0.0.0.0:80"));
	assert_false(loopback("[::]:80"));
	assert_false(loopback("10.0.0.1:80"));
	assert_false(loopback("[::ffff:10.0.0.1]:80"));
	assert_false(loopback("128.0.0.1:80"));
}

static void test_auth_parse(void **state)
{
	struct agent_cred *c = NULL;
	size_t n = 0;
	int bad = 0;

	(void)state;
	assert_int_equal(agent_auth__parse("# tokens\n\nBearer abc\nbasic alice:pa ss\r\n  bearer "
					   "Z9_-.~+/=\n",
					   &c, &n, &bad),
			 0);
	assert_int_equal(n, 3);
	assert_true(agent_auth__check(c, n, "Bearer abc"));
	assert_true(agent_auth__check(c, n, "bearer abc"));
	assert_true(agent_auth__check(c, n, "Bearer Z9_-.~+/="));
	assert_false(agent_auth__check(c, n, "Bearer abcd"));
	assert_false(agent_auth__check(c, n, "Bearer ab"));
	assert_false(agent_auth__check(c, n, "Bearer "));
	assert_false(agent_auth__check(c, n, "abc"));
	assert_false(agent_auth__check(c, n, NULL));
	/* alice:pa ss */
	assert_true(agent_auth__check(c, n, "Basic YWxpY2U6cGEgc3M="));
	assert_false(agent_auth__check(c, n, "Basic YWxpY2U6cGFzcw==")); /* alice:pass */
	assert_false(agent_auth__check(c, n, "Basic !!!"));
	/* a bearer token is not a basic credential, nor the reverse */
	assert_false(agent_auth__check(c, n, "Bearer alice:pa ss"));
	assert_false(agent_auth__check(c, n, "Basic YWJj")); /* abc */
	agent_auth__free(c, n);

	assert_int_equal(agent_auth__parse("Bearer ok\nToken x\n", &c, &n, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	assert_int_equal(agent_auth__parse("Bearer two words\n", &c, &n, &bad), -EINVAL);
	assert_int_equal(agent_auth__parse("Basic nocolon\n", &c, &n, &bad), -EINVAL);
	assert_int_equal(agent_auth__parse("Bearer\n", &c, &n, &bad), -EINVAL);
	assert_int_equal(agent_auth__parse("# nothing\n\n", &c, &n, &bad), -ENODATA);
	agent_auth__free(NULL, 0);
}

static void test_private_files(void **state)
{
	char path[] = "/tmp/fsp-auth-XXXXXX", *text;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "Bearer t\n", 9), 9);
	close(fd);
	assert_int_equal(chmod(path, 0600), 0);
	text = agent_auth__read_private(path, "--auth-file", true);
	assert_non_null(text);
	assert_string_equal(text, "Bearer t\n");
	free(text);
	/* others may read it: refused (a certificate need not be private) */
	assert_int_equal(chmod(path, 0640), 0);
	assert_null(agent_auth__read_private(path, "--auth-file", true));
	text = agent_auth__read_private(path, "--tls-cert", false);
	assert_non_null(text);
	free(text);
	unlink(path);
	assert_null(agent_auth__read_private("/nonexistent/auth", "--auth-file", true));
	assert_null(agent_auth__read_private("/tmp", "--auth-file", true)); /* not a file */
	/* a FIFO nobody writes: refused at once, not waited on; a device too */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_null(agent_auth__read_private(path, "--auth-file", true));
	unlink(path);
	assert_null(agent_auth__read_private("/dev/null", "--tls-cert", false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_auth_parse),
		cmocka_unit_test(test_private_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
