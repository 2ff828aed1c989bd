from kafka_authz_cli.cli.app import main

main()
