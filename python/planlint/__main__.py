from planlint import main

main()
